package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.gantry.api.GantryException;

class JobSortTests {

    @ParameterizedTest(name = "sort={0} orders by {1}")
    @CsvSource(delimiter = '|', textBlock = """
            id          | job_id ASC, array_task_id ASC
            -id         | job_id DESC, array_task_id DESC
            submit      | submit_time ASC, job_id ASC, array_task_id ASC
            -submit     | submit_time DESC, job_id DESC, array_task_id DESC
            start       | COALESCE(start_time, expected_start_time) ASC NULLS LAST, job_id ASC, array_task_id ASC
            -end        | end_time DESC NULLS FIRST, job_id DESC, array_task_id DESC
            expected    | CASE WHEN state = 'PENDING' THEN expected_start_time END ASC NULLS LAST, job_id ASC, array_task_id ASC
            -expected   | CASE WHEN state = 'PENDING' THEN expected_start_time END DESC NULLS LAST, job_id DESC, array_task_id DESC
            -priority   | priority DESC, job_id DESC, array_task_id DESC
            user        | user_name ASC, job_id ASC, array_task_id ASC
            state       | state ASC, job_id ASC, array_task_id ASC
            state,-priority | state ASC, priority DESC, job_id DESC, array_task_id DESC
            ' user , -ID ' | user_name ASC, job_id DESC, array_task_id DESC
            """)
    void everyOrderEndsInTheJobAndTaskIdTieBreakRunningTheWayOfTheLastKey(String sort, String orderBy) {
        assertThat(JobSort.parse(sort).orderBy()).isEqualTo(orderBy);
    }

    @Test
    void noSortIsTheQueueOrder() {
        assertThat(JobSort.parse(null).orderBy()).isEqualTo(JobSort.QUEUE_ORDER);
        assertThat(JobSort.parse("  ").orderBy()).isEqualTo(JobSort.QUEUE_ORDER);
    }

    @Test
    void activeListsRunningThenPendingByPriorityThenEndedNewestFirstAndMinusTurnsItAround() {
        assertThat(JobSort.parse("active").orderBy()).isEqualTo("CASE WHEN state IN ('RUNNING', 'COMPLETING', 'SUSPENDED')"
                + " THEN 0 WHEN state = 'PENDING' THEN 1 ELSE 2 END ASC, CASE WHEN state = 'PENDING' THEN priority ELSE 0 END"
                + " DESC, end_time DESC NULLS FIRST, job_id DESC, array_task_id ASC");
        assertThat(JobSort.parse("-active").orderBy()).isEqualTo("CASE WHEN state IN ('RUNNING', 'COMPLETING', 'SUSPENDED')"
                + " THEN 0 WHEN state = 'PENDING' THEN 1 ELSE 2 END DESC, CASE WHEN state = 'PENDING' THEN priority ELSE 0 END"
                + " ASC, end_time ASC NULLS LAST, job_id ASC, array_task_id DESC");
    }

    @ParameterizedTest(name = "sort=\"{0}\" is refused")
    @ValueSource(strings = {"bogus", "-", "id,", ",id", "id,,submit", "submit,-submit", "+id", "--id", "job_id", "id;drop"})
    void anythingButTheKnownKeysIsA400NamingSort(String sort) {
        assertThatThrownBy(() -> JobSort.parse(sort)).isInstanceOfSatisfying(GantryException.class, e -> {
            assertThat(e.errors()).singleElement().satisfies(err -> assertThat(err.field()).isEqualTo("sort"));
            assertThat(e.getMessage()).contains("sort");
        });
    }
}
