package io.gantry.cluster;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class ClusterConfiguration {

    /** Checked once at start; a bad configuration stops start-up (see {@link ClusterConfigFailureAnalyzer}). */
    @Bean
    ClusterLayout clusterLayout(ClusterProperties properties) {
        return ClusterLayout.from(properties);
    }
}
