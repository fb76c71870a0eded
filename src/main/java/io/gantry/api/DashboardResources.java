package io.gantry.api;

import java.time.Duration;

import org.springframework.context.annotation.Configuration;
import org.springframework.http.CacheControl;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * How the dashboard's files are cached. Vite names every file under {@code /assets/} after a hash of
 * its content, so a browser may keep them for a year without asking again ({@code immutable}): a new
 * build has new names. {@code index.html} (and any other static file) names them, so it is
 * {@code no-cache}: revalidated on every load, answered 304 when unchanged (see
 * {@code spring.web.resources.cache} in application.yml). Both are compressed by the server
 * ({@code server.compression}), as are large API answers. Setting Cache-Control here also keeps
 * Spring Security's default {@code no-store} off them: its header writer leaves a set header alone.
 */
@Configuration(proxyBeanMethods = false)
class DashboardResources implements WebMvcConfigurer {

    static final String ASSETS = "/assets/**";

    @Override
    public void addResourceHandlers(ResourceHandlerRegistry registry) {
        registry.addResourceHandler(ASSETS)
                .addResourceLocations("classpath:/static/assets/")
                .setCacheControl(CacheControl.maxAge(Duration.ofDays(365)).cachePublic().immutable())
                // No Last-Modified: an immutable file needs no revalidation, and jar entries' times say nothing.
                .setUseLastModified(false);
    }
}
