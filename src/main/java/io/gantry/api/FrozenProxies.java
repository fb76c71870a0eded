package io.gantry.api;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The proxies Spring makes around services (for {@code @Transactional} and {@code @PreAuthorize}) are
 * frozen: no advice is ever added to one after it is made, and Spring then binds each method once
 * to what it needs. Unfrozen, a call to a method with no advice at all (a submission asks
 * {@code ClusterService} and {@code AccountingService} for the layout, the partition QOS, the charge)
 * still went through the dynamic interceptor's chain lookup and a reflective call: 3 % of a
 * submission's request-thread CPU (issue 36's profile). Advised methods keep their advice.
 */
@Configuration(proxyBeanMethods = false)
class FrozenProxies {

    @Bean
    static BeanFactoryPostProcessor freezeProxies() {
        return FrozenProxies::freeze;
    }

    static void freeze(ConfigurableListableBeanFactory beans) {
        if (beans.containsBeanDefinition(AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME)) {
            beans.getBeanDefinition(AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME).getPropertyValues().add("frozen", true);
        }
    }
}
