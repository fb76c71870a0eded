package io.gantry.cluster;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class ClusterConfiguration {

    /** Checked once at start; a bad configuration stops start-up (see {@link ClusterConfigFailureAnalyzer}). */
    @Bean
    ClusterLayout clusterLayout(ClusterProperties properties,
            @org.springframework.beans.factory.annotation.Value("${gantry.fairshare.cpu-weight:1.0}") double cpuWeight,
            @org.springframework.beans.factory.annotation.Value("${gantry.fairshare.gpu-weight:16.0}") double gpuWeight,
            @org.springframework.beans.factory.annotation.Value("${gantry.fairshare.memory-gb-weight:0.0}")
            double memoryGbWeight) {
        // A partition without tres-billing-weights bills as fair share's global weights say.
        return ClusterLayout.from(properties,
                new io.gantry.engine.BillingWeights(cpuWeight, memoryGbWeight, gpuWeight, 0, false));
    }
}
