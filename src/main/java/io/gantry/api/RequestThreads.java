package io.gantry.api;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToIntFunction;

import org.apache.coyote.ProtocolHandler;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;
import org.springframework.boot.tomcat.TomcatProtocolHandlerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The web server's request threads as gauges ({@code gantry.http.threads.busy}, {@code .current},
 * {@code .max}), read straight from the connector's executor.
 * <p>
 * Tomcat's own thread metrics need its JMX registry ({@code server.tomcat.mbeanregistry.enabled}),
 * and that registry also registers an MBean for every request processor: with 12,500 agents each
 * holding a long poll, processors are made and dropped over a thousand times a second, each
 * registration under one connector-wide lock, and profiled at 12,500 pseudo-agents every one of
 * the 200 request threads was queued on that lock. Measuring the threads that way made them busy,
 * so these gauges leave the registry off.
 */
@Configuration(proxyBeanMethods = false)
class RequestThreads {

    private final AtomicReference<ProtocolHandler> handler = new AtomicReference<>();

    @Bean
    TomcatProtocolHandlerCustomizer<ProtocolHandler> requestThreadsHandler() {
        return handler::set;
    }

    @Bean
    RequestThreadGauges requestThreadGauges(MeterRegistry registry) {
        gauge(registry, "gantry.http.threads.busy", "Request threads serving a request now",
                ThreadPoolExecutor::getActiveCount);
        gauge(registry, "gantry.http.threads.current", "Request threads in the pool now",
                ThreadPoolExecutor::getPoolSize);
        gauge(registry, "gantry.http.threads.max", "The most request threads the pool may hold",
                ThreadPoolExecutor::getMaximumPoolSize);
        return new RequestThreadGauges();
    }

    /** Marks that the gauges are registered (they read the handler Tomcat hands over later). */
    record RequestThreadGauges() {
    }

    private void gauge(MeterRegistry registry, String name, String description, ToIntFunction<ThreadPoolExecutor> read) {
        Gauge.builder(name, handler, h -> {
            ProtocolHandler current = h.get();
            Executor executor = current == null ? null : current.getExecutor();
            return executor instanceof ThreadPoolExecutor pool ? read.applyAsInt(pool) : Double.NaN;
        }).description(description).baseUnit("threads").register(registry);
    }
}
