package io.gantry.api;

import java.lang.annotation.ElementType;

import jakarta.validation.Path;
import jakarta.validation.TraversableResolver;

import org.hibernate.validator.BaseHibernateValidatorConfiguration;
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
        TraversableResolver everyProperty = new TraversableResolver() {
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
        };
        // Without the cache Hibernate Validator keeps of a resolver's answers (a map per validation, looked
        // up per property), which costs more than asking this one.
        return configuration -> configuration.traversableResolver(everyProperty)
                .addProperty(BaseHibernateValidatorConfiguration.ENABLE_TRAVERSABLE_RESOLVER_RESULT_CACHE, "false");
    }
}
