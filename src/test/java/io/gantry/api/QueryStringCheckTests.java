package io.gantry.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which query strings {@link QueryStringCheck} lets through: percent-encoded UTF-8 without NUL, only. */
class QueryStringCheckTests {

    @Test
    void wellFormedQueriesPass() {
        assertThat(QueryStringCheck.problem("user=alice&state=PENDING,RUNNING")).isNull();
        assertThat(QueryStringCheck.problem("name=%C3%A9t%C3%A9&x=%F0%9F%98%80")).isNull();
        assertThat(QueryStringCheck.problem("name=été")).isNull();
        assertThat(QueryStringCheck.problem("start=%2B2026-01-01T00:00:00Z")).isNull();
    }

    @Test
    void badEscapesBadBytesAndNulAreRefused() {
        assertThat(QueryStringCheck.problem("user=%zz")).contains("two hex digits");
        assertThat(QueryStringCheck.problem("user=%")).contains("two hex digits");
        assertThat(QueryStringCheck.problem("page=%2")).contains("two hex digits");
        assertThat(QueryStringCheck.problem("state=%e9")).contains("UTF-8");
        assertThat(QueryStringCheck.problem("name=%c3%28")).contains("UTF-8");
        assertThat(QueryStringCheck.problem("user=\uFFFD")).contains("percent-encoded");
        assertThat(QueryStringCheck.problem("user=a%00b")).contains("NUL");
    }
}
