package io.gantry;

import java.util.Arrays;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

import io.gantry.loadtest.LoadTest;

@SpringBootApplication
@ConfigurationPropertiesScan
public class GantryApplication {

    public static void main(String[] args) {
        if (args.length > 0 && "loadtest".equals(args[0])) {
            // A load generator for a running controller: it needs no Spring context of its own.
            LoadTest.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        SpringApplication.run(GantryApplication.class, args);
    }
}
