package io.gantry.noded;

import java.util.ArrayList;
import java.util.List;

/**
 * The text of {@code nvidia-smi --query-gpu=}{@link #QUERY}{@code --format=csv,noheader,nounits} as
 * readings, one per GPU line. A field the GPU cannot give ({@code [N/A]}, {@code [Not Supported]},
 * an error in brackets) is null, never 0: a GPU split into MIG instances reports no utilisation, and
 * reading that as idle would call a busy GPU wasted. A line without a numeric index and a UUID (a
 * warning, a header, a cut line) is skipped.
 */
final class GpuReadings {

    static final String QUERY = "--query-gpu=index,uuid,utilization.gpu,memory.used,memory.total,power.draw,"
            + "temperature.gpu,ecc.errors.uncorrected.volatile.total";
    private static final int FIELDS = 8;

    private GpuReadings() {
    }

    /** One GPU's line. */
    record Reading(int index, String uuid, Double utilization, Long memoryUsedMb, Long memoryTotalMb,
            Double powerWatts, Double temperatureC, Long eccUncorrected) {
    }

    static List<Reading> parse(String csv) {
        List<Reading> readings = new ArrayList<>();
        if (csv == null) {
            return readings;
        }
        for (String line : csv.split("\\R")) {
            String[] f = line.split(",", -1);
            if (f.length != FIELDS) {
                continue;
            }
            Integer index = integer(f[0]);
            String uuid = f[1].strip();
            if (index == null || index < 0 || uuid.isEmpty() || uuid.startsWith("[")) {
                continue;
            }
            Double util = decimal(f[2]);
            readings.add(new Reading(index, uuid, util == null ? null : Math.max(0, Math.min(100, util)),
                    whole(f[3]), whole(f[4]), decimal(f[5]), decimal(f[6]), whole(f[7])));
        }
        return readings;
    }

    private static Integer integer(String text) {
        try {
            return Integer.valueOf(text.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Double decimal(String text) {
        try {
            double v = Double.parseDouble(text.strip());
            return Double.isFinite(v) && v >= 0 ? v : null;
        } catch (NumberFormatException e) {
            return null; // [N/A], [Not Supported], [Unknown Error], blank
        }
    }

    private static Long whole(String text) {
        Double v = decimal(text);
        return v == null ? null : Math.round(v);
    }
}
