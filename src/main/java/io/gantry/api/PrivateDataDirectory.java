package io.gantry.api;

import java.nio.file.Path;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationListener;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import io.gantry.secrets.OwnerOnlyFiles;

/**
 * Keeps {@code gantry.data-dir} its owner's alone ({@code 0700}, files {@code 0600}): the H2 store
 * there holds every job's script and environment, next to the generated secrets. Runs before any
 * bean is made, so the directory exists {@code 0700} before H2 opens (and would otherwise create) it,
 * and one that an older version left readable by others is tightened, with one warning; runs again
 * once the controller is ready, for the files H2 has created meanwhile with the process's umask.
 */
@Component
class PrivateDataDirectory implements BeanFactoryPostProcessor, EnvironmentAware,
        ApplicationListener<ApplicationReadyEvent> {

    private static final Logger log = LoggerFactory.getLogger(PrivateDataDirectory.class);

    private Path dataDir;

    @Override
    public void setEnvironment(Environment environment) {
        // GantryProperties is not bound yet at this stage; its default, too, is ./data.
        dataDir = Binder.get(environment).bind("gantry.data-dir", Path.class).orElse(Path.of("./data"));
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        int restricted = OwnerOnlyFiles.restrictDirectory(dataDir);
        if (restricted > 0) {
            log.warn("The data directory {} or files in it were open to others: restricted {} of them to their owner "
                    + "(the directory 0700, its files 0600)", dataDir.toAbsolutePath(), restricted);
        }
    }

    @Override
    public void onApplicationEvent(ApplicationReadyEvent event) {
        int restricted = OwnerOnlyFiles.restrictDirectory(dataDir);
        log.debug("Restricted {} new entries of {} to their owner", restricted, dataDir);
    }
}
