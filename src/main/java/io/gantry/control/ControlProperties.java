package io.gantry.control;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code gantry.control.*}: how controllers sharing one store find the leader. {@code advertise-url}
 * is the URL other controllers reach this one at when it leads (default {@code http://HOSTNAME:PORT});
 * {@code forward-timeout} bounds a write forwarded to the leader.
 */
@ConfigurationProperties("gantry.control")
public record ControlProperties(String advertiseUrl, @DefaultValue("60s") Duration forwardTimeout) {
}
