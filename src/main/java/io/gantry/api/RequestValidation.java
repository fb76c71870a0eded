package io.gantry.api;

import java.lang.annotation.ElementType;

import jakarta.validation.Path;
import jakarta.validation.TraversableResolver;

import org.springframework.boot.validation.autoconfigure.ValidationConfigurationCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Request bodies are validated as the plain records they are. With JPA on the class path, Hibernate
 * Validator asks JPA whether each property is loaded before it checks it (a persistence-provider
 * lookup per property, per request: a visible share of a submission's profile); a request body is
 * never a lazily loaded entity, so every property is reachable.
 */
@Configuration(proxyBeanMethods = false)
class RequestValidation {

    @Bean
    ValidationConfigurationCustomizer everyPropertyReachable() {
        return configuration -> configuration.traversableResolver(new TraversableResolver() {
            @Override
            public boolean isReachable(Object bean, Path.Node property, Class<?> rootType, Path path,
                    ElementType elementType) {
                return true;
            }

            @Override
            public boolean isCascadable(Object bean, Path.Node property, Class<?> rootType, Path path,
                    ElementType elementType) {
                return true;
            }
        });
    }
}
