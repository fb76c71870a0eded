package io.gantry.api;

import java.util.List;
import java.util.function.Function;

/** The envelope of every list: {@code {"items": [...], "page": 0, "size": 50, "total": 1234}}. */
public record PageResponse<T>(List<T> items, int page, int size, long total) {

    /** Cuts one page out of a list already filtered and sorted in memory. */
    public static <S, T> PageResponse<T> of(List<S> all, PageRequest request, Function<S, T> mapper) {
        int from = (int) Math.min((long) request.page() * request.size(), all.size());
        int to = Math.min(from + request.size(), all.size());
        return new PageResponse<>(all.subList(from, to).stream().map(mapper).toList(),
                request.page(), request.size(), all.size());
    }
}
