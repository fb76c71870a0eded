package io.gantry.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A command's arguments read as Slurm's commands read them (getopt_long): {@code -j 1}, {@code -j1},
 * grouped flags {@code -hr}, {@code --jobs=1}, {@code --jobs 1}, unambiguous abbreviations of long
 * options, and {@code --} ending the options. The wrong ones are reported with getopt's words.
 */
final class CommandLine {

    /** One option: its long name, its short letter (or 0) and whether it takes a value. */
    record Option(String name, char letter, boolean value) {
    }

    /** A getopt error; the message is what Slurm's command prints before "Try ... --help". */
    static final class UsageError extends RuntimeException {
        UsageError(String message) {
            super(message);
        }
    }

    private final Map<String, List<String>> values = new LinkedHashMap<>();
    private final List<String> operands = new ArrayList<>();

    private CommandLine() {
    }

    /** Slurm's {@code -V/--version}: prints the version the commands imitate when asked; whether it was. */
    boolean versionPrinted(CliEnvironment env) {
        if (!has("version")) {
            return false;
        }
        env.out().println("slurm 22.05.8");
        return true;
    }

    /**
     * Reads {@code args}; with {@code stopAtOperand} (sbatch) the first operand ends the options and it
     * and everything after it are operands, as the script and its arguments are.
     */
    static CommandLine parse(List<String> args, List<Option> options, boolean stopAtOperand) {
        CommandLine line = new CommandLine();
        int i = 0;
        while (i < args.size()) {
            String arg = args.get(i);
            if (arg.equals("--")) {
                line.operands.addAll(args.subList(i + 1, args.size()));
                break;
            }
            if (arg.startsWith("--")) {
                int eq = arg.indexOf('=');
                String name = eq < 0 ? arg.substring(2) : arg.substring(2, eq);
                Option option = longOption(options, name, arg);
                if (option.value()) {
                    String value;
                    if (eq >= 0) {
                        value = arg.substring(eq + 1);
                    } else if (i + 1 < args.size()) {
                        value = args.get(++i);
                    } else {
                        throw new UsageError("option '--" + option.name() + "' requires an argument");
                    }
                    line.add(option.name(), value);
                } else {
                    if (eq >= 0) {
                        throw new UsageError("option '--" + option.name() + "' doesn't allow an argument");
                    }
                    line.add(option.name(), "");
                }
            } else if (arg.startsWith("-") && arg.length() > 1) {
                int k = 1;
                while (k < arg.length()) {
                    char letter = arg.charAt(k);
                    Option option = options.stream().filter(o -> o.letter() == letter).findFirst()
                            .orElseThrow(() -> new UsageError("invalid option -- '" + letter + "'"));
                    if (option.value()) {
                        String value;
                        if (k + 1 < arg.length()) {
                            value = arg.substring(k + 1);
                        } else if (i + 1 < args.size()) {
                            value = args.get(++i);
                        } else {
                            throw new UsageError("option requires an argument -- '" + letter + "'");
                        }
                        line.add(option.name(), value);
                        break;
                    }
                    line.add(option.name(), "");
                    k++;
                }
            } else if (stopAtOperand) {
                line.operands.addAll(args.subList(i, args.size()));
                break;
            } else {
                line.operands.add(arg);
            }
            i++;
        }
        return line;
    }

    private static Option longOption(List<Option> options, String name, String arg) {
        for (Option o : options) {
            if (o.name().equals(name)) {
                return o;
            }
        }
        List<Option> prefixed = options.stream().filter(o -> o.name().startsWith(name)).toList();
        if (prefixed.size() == 1 && !name.isEmpty()) {
            return prefixed.get(0);
        }
        if (prefixed.size() > 1) {
            throw new UsageError("option '" + arg + "' is ambiguous");
        }
        throw new UsageError("unrecognized option '" + arg + "'");
    }

    private void add(String name, String value) {
        values.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
    }

    boolean has(String name) {
        return values.containsKey(name);
    }

    /** The last value given (later options win, as in Slurm), or null. */
    String value(String name) {
        List<String> all = values.get(name);
        return all == null ? null : all.get(all.size() - 1);
    }

    /** Every value given, comma lists split: {@code -j 1,2 -j 3} is 1, 2, 3. */
    List<String> list(String name) {
        List<String> out = new ArrayList<>();
        for (String value : values.getOrDefault(name, List.of())) {
            for (String part : value.split(",")) {
                if (!part.isBlank()) {
                    out.add(part.strip());
                }
            }
        }
        return out;
    }

    List<String> operands() {
        return operands;
    }

    /** The options given, in order with their values, for those passed on unread (sbatch's directives). */
    Map<String, List<String>> all() {
        return values;
    }
}
