package io.gantry.api;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * {@code gantry.api.*}, web concerns every endpoint shares.
 *
 * @param maxRequestBytes the largest request body any endpoint reads; a larger one is answered 413
 *        before it is read. The default, 16 MB, leaves room for the largest submission the jobs module
 *        takes (a 4 MB script and a 1 MiB environment) with JSON's escapes on top.
 */
@ConfigurationProperties("gantry.api")
public record ApiProperties(@DefaultValue("16MB") DataSize maxRequestBytes) {

    public ApiProperties {
        if (maxRequestBytes.toBytes() < 1) {
            throw new IllegalArgumentException("gantry.api.max-request-bytes must be at least 1 byte, was "
                    + maxRequestBytes);
        }
    }
}
