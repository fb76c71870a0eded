package io.gantry.jobs;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

/**
 * {@link JobOptions}' components as columns of {@code jobs}, for the JDBC writes that go around JPA
 * ({@link JobInserts}): each named as Hibernate names the embedded attribute ({@code killOnInvalidDep}
 * is {@code kill_on_invalid_dep}), in the record's order, bound by its type. An option added to the record
 * is written with no change here; a type not listed is refused when the class loads, not at a submission.
 */
final class JobOptionColumns {

    private static final Map<Class<?>, Integer> SQL_TYPES = Map.of(Instant.class, Types.TIMESTAMP_WITH_TIMEZONE,
            Boolean.class, Types.BOOLEAN, Integer.class, Types.INTEGER, Long.class, Types.BIGINT,
            String.class, Types.VARCHAR);

    private static final List<RecordComponent> COMPONENTS = List.of(JobOptions.class.getRecordComponents());

    /** The column names, in the record's order. */
    static final List<String> NAMES = COMPONENTS.stream().map(c -> column(c.getName())).toList();

    static {
        for (RecordComponent c : COMPONENTS) {
            if (!SQL_TYPES.containsKey(c.getType())) {
                throw new IllegalStateException("JobOptions." + c.getName() + " is a " + c.getType().getSimpleName()
                        + "; a job option is one of " + SQL_TYPES.keySet().stream().map(Class::getSimpleName).sorted().toList());
            }
        }
    }

    private JobOptionColumns() {
    }

    /** {@code killOnInvalidDep} -> {@code kill_on_invalid_dep}, as Spring's physical naming strategy does. */
    static String column(String attribute) {
        StringBuilder column = new StringBuilder();
        for (char ch : attribute.toCharArray()) {
            if (Character.isUpperCase(ch)) {
                column.append('_').append(Character.toLowerCase(ch));
            } else {
                column.append(ch);
            }
        }
        return column.toString();
    }

    /** Binds the options to the parameters after {@code last}, in {@link #NAMES}' order. */
    static void bind(PreparedStatement ps, int last, JobOptions options) throws SQLException {
        int i = last;
        for (RecordComponent c : COMPONENTS) {
            Object value = value(c.getAccessor(), options);
            if (value == null) {
                ps.setNull(++i, SQL_TYPES.get(c.getType()));
            } else if (value instanceof Instant at) {
                ps.setObject(++i, OffsetDateTime.ofInstant(at, ZoneOffset.UTC));
            } else {
                ps.setObject(++i, value, SQL_TYPES.get(c.getType()));
            }
        }
    }

    private static Object value(Method accessor, JobOptions options) {
        try {
            return accessor.invoke(options);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read JobOptions." + accessor.getName(), e);
        }
    }
}
