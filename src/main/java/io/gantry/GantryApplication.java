package io.gantry;

import java.util.Arrays;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

import io.gantry.loadtest.LoadTest;
import io.gantry.simulation.BenchCommand;
import io.gantry.simulation.SimulateCommand;

@SpringBootApplication
@org.springframework.scheduling.annotation.EnableScheduling
@ConfigurationPropertiesScan
public class GantryApplication {

    public static void main(String[] args) {
        // The tools run without Spring: no context, no database, just the engine or an HTTP client.
        String[] rest = args.length > 0 ? Arrays.copyOfRange(args, 1, args.length) : args;
        if (args.length > 0) {
            switch (args[0]) {
                case "simulate" -> System.exit(SimulateCommand.run(rest));
                case "bench" -> System.exit(BenchCommand.run(rest));
                case "simulate-quotas" -> System.exit(io.gantry.simulation.QuotaDay.run(rest));
                case "agent" -> System.exit(io.gantry.noded.AgentCommand.run(rest));
                case "srun" -> System.exit(io.gantry.cli.srun.Srun.run(rest));
                case "salloc" -> System.exit(io.gantry.cli.srun.Salloc.run(rest));
                case "loadtest" -> {
                    LoadTest.main(rest);
                    return;
                }
                default -> {
                    if (io.gantry.cli.Cli.handles(args[0])) {
                        System.exit(io.gantry.cli.Cli.run(args[0], rest));
                    }
                    // Options (--server.port=...) are Spring's, for the controller; a word it does not
                    // know is a mistake, not a request to start one.
                    if (!args[0].startsWith("-")) {
                        System.err.println("gantry: unknown command '" + args[0] + "'");
                        System.err.print(io.gantry.cli.Cli.usage());
                        System.exit(2);
                    }
                }
            }
        }
        SpringApplication.run(GantryApplication.class, args);
    }
}
