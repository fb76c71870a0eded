package io.gantry.reports;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.BiConsumer;

/** Splits time intervals into the UTC hours they cover. */
final class Hours {

    private Hours() {
    }

    static Instant floor(Instant t) {
        return t.truncatedTo(ChronoUnit.HOURS);
    }

    /** Calls {@code each(hourStart, seconds)} for every hour [from, to) overlaps, with the seconds it overlaps. */
    static void split(Instant from, Instant to, BiConsumer<Instant, Long> each) {
        if (!to.isAfter(from)) {
            return;
        }
        Instant hour = floor(from);
        while (hour.isBefore(to)) {
            Instant next = hour.plus(1, ChronoUnit.HOURS);
            Instant a = from.isAfter(hour) ? from : hour;
            Instant b = to.isBefore(next) ? to : next;
            long seconds = b.getEpochSecond() - a.getEpochSecond();
            if (seconds > 0) {
                each.accept(hour, seconds);
            }
            hour = next;
        }
    }
}
