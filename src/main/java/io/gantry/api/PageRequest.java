package io.gantry.api;

/**
 * {@code ?page=0&size=50}, checked: page >= 0, 1 <= size <= 1000, and the page's first row within
 * what the store can skip to (an int offset).
 */
public record PageRequest(int page, int size) {

    public static final int MAX_SIZE = 1000;
    public static final int DEFAULT_SIZE = 50;

    public PageRequest {
        if (page < 0) {
            throw GantryException.badRequest("page", "must be 0 or more, was " + page);
        }
        if (size < 1 || size > MAX_SIZE) {
            throw GantryException.badRequest("size", "must be between 1 and " + MAX_SIZE + ", was " + size);
        }
        if ((long) page * size > Integer.MAX_VALUE) {
            throw GantryException.badRequest("page", "page " + page + " of size " + size + " starts past row "
                    + Integer.MAX_VALUE + ", the last a list can reach");
        }
    }

    public static PageRequest of(Integer page, Integer size) {
        return new PageRequest(page == null ? 0 : page, size == null ? DEFAULT_SIZE : size);
    }

    public long offset() {
        return (long) page * size;
    }
}
