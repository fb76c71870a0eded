package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.sql.PreparedStatement;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The options a job keeps as asked reach the store as columns named and typed after JobOptions' components. */
class JobOptionColumnsTests {

    @Test
    void eachOptionIsTheColumnHibernateNamesItsAttribute() {
        assertThat(JobOptionColumns.column("killOnInvalidDep")).isEqualTo("kill_on_invalid_dep");
        assertThat(JobOptionColumns.column("shards")).isEqualTo("shards");
        assertThat(JobOptionColumns.NAMES).containsExactlyElementsOf(Arrays.stream(JobOptions.class.getRecordComponents())
                .map(c -> JobOptionColumns.column(c.getName())).toList());
    }

    @Test
    void optionsAreBoundAfterTheOtherColumnsInTheRecordsOrderAndNullsWithTheirSqlType() throws Exception {
        List<List<Object>> calls = new ArrayList<>();
        PreparedStatement ps = (PreparedStatement) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {PreparedStatement.class}, (proxy, method, args) -> {
                    List<Object> call = new ArrayList<>();
                    call.add(method.getName());
                    call.addAll(Arrays.asList(args));
                    calls.add(call);
                    return null;
                });

        JobOptionColumns.bind(ps, 7, JobOptions.NONE);
        assertThat(calls).hasSize(JobOptionColumns.NAMES.size())
                .allSatisfy(call -> assertThat(call.get(0)).isEqualTo("setNull"));
        assertThat(calls.get(0).get(1)).isEqualTo(8);

        calls.clear();
        Object[] values = Arrays.stream(JobOptions.class.getRecordComponents())
                .map(c -> c.getType() == Instant.class ? Instant.parse("2030-01-01T00:00:00Z")
                        : c.getType() == Boolean.class ? Boolean.TRUE
                        : c.getType() == Integer.class ? (Object) 3
                        : c.getType() == Long.class ? (Object) 4L : "text")
                .toArray();
        JobOptions all = (JobOptions) JobOptions.class.getDeclaredConstructors()[0].newInstance(values);
        JobOptionColumns.bind(ps, 0, all);
        for (int i = 0; i < values.length; i++) {
            List<Object> call = calls.get(i);
            assertThat(call.get(0)).isEqualTo("setObject");
            assertThat(call.get(1)).isEqualTo(i + 1);
            if (values[i] instanceof Instant at) {
                assertThat(call.get(2)).isEqualTo(OffsetDateTime.ofInstant(at, ZoneOffset.UTC));
            } else {
                assertThat(call.get(2)).isEqualTo(values[i]);
                assertThat(call.get(3)).isIn(Types.BOOLEAN, Types.INTEGER, Types.BIGINT, Types.VARCHAR);
            }
        }
    }
}
