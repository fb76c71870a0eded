package io.gantry;

import io.gantry.simulation.BenchCommand;
import io.gantry.simulation.SimulateCommand;
import java.util.Arrays;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

@SpringBootApplication
@ConfigurationPropertiesScan
public class GantryApplication {

    public static void main(String[] args) {
        // Offline tools run without Spring: no context, no database, just the engine.
        if (args.length > 0 && args[0].equals("simulate")) {
            System.exit(SimulateCommand.run(Arrays.copyOfRange(args, 1, args.length)));
        }
        if (args.length > 0 && args[0].equals("bench")) {
            System.exit(BenchCommand.run(Arrays.copyOfRange(args, 1, args.length)));
        }
        SpringApplication.run(GantryApplication.class, args);
    }
}
