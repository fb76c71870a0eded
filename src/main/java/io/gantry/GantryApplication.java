package io.gantry;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

@SpringBootApplication
@ConfigurationPropertiesScan
public class GantryApplication {

    public static void main(String[] args) {
        SpringApplication.run(GantryApplication.class, args);
    }
}
