package io.gantry.api;

import java.nio.file.Path;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings shared by every feature: {@code gantry.data-dir} is where the controller keeps what
 * must survive a restart outside the store (the embedded H2 file, generated secrets).
 */
@ConfigurationProperties("gantry")
public record GantryProperties(@DefaultValue("./data") Path dataDir) {
}
