package io.gantry.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.gantry.cli.SacctmgrWords.Word;
import tools.jackson.databind.JsonNode;

/**
 * What every {@code sacctmgr} entity shares: the controller's API (reached once, when first needed),
 * paged reads of the accounting data, Slurm's commit question and its messages for refusals and
 * unknown words.
 */
final class SacctmgrSession {

    private final CliEnvironment env;
    private final boolean immediate;
    private ControllerApi api;

    SacctmgrSession(CliEnvironment env, boolean immediate) {
        this.env = env;
        this.immediate = immediate;
    }

    CliEnvironment env() {
        return env;
    }

    ControllerApi api() {
        if (api == null) {
            api = env.api().get();
        }
        return api;
    }

    List<JsonNode> all(String path) {
        List<JsonNode> out = new ArrayList<>();
        String sep = path.contains("?") ? "&" : "?";
        for (int page = 0;; page++) {
            JsonNode answer = api().get(path + sep + "size=1000&page=" + page);
            if (answer == null || !answer.has("items")) {
                break;
            }
            answer.get("items").forEach(out::add);
            if (answer.get("items").isEmpty() || (long) (page + 1) * 1000 >= answer.path("total").asLong()) {
                break;
            }
        }
        return out;
    }

    Map<String, JsonNode> accounts() {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        for (JsonNode a : all("/api/v1/accounts")) {
            out.put(a.path("name").asString(), a);
        }
        return out;
    }

    /** Every QOS name, in the API's order: an association with no QOS list may use them all. */
    List<String> qosNames() {
        return all("/api/v1/qos").stream().map(q -> q.path("name").asString()).toList();
    }

    /**
     * Slurm's commit_check: with {@code -i} yes; else the question, then the first character of standard
     * input decides (y commits). At the end of the input Slurm would ask again and again; Gantry answers as
     * Slurm does when its 30 seconds run out.
     */
    boolean commit() {
        if (immediate) {
            return true;
        }
        env.out().println("Would you like to commit changes? (You have 30 seconds to decide)");
        while (true) {
            env.out().print("(N/y): ");
            env.out().flush();
            int c;
            try {
                c = env.in().read();
            } catch (IOException e) {
                c = -1;
            }
            if (c < 0) {
                env.out().println("timeout");
                env.out().println(" Changes Discarded");
                return false;
            }
            env.out().println();
            if (c == 'y' || c == 'Y') {
                return true;
            }
            if (c == 'n' || c == 'N' || c == '\n') {
                env.out().println(" Changes Discarded");
                return false;
            }
            env.out().println("Y or N please");
        }
    }

    /** What an API refusal prints: Slurm's permission message for 403, else the problem's detail. */
    int refused(ControllerApi.ApiException e, String adding) {
        if (e.status() == 403) {
            if (adding != null) {
                env.err().println(" Problem adding " + adding + ": Access/permission denied");
            } else {
                env.err().println("sacctmgr: error: Your user doesn't have privilege to perform this action");
                env.err().println(" Error with request: Access/permission denied");
            }
        } else {
            env.err().println(" Error with request: " + e.getMessage());
        }
        return 1;
    }

    int unknownOption(Word w) {
        env.err().println(" Unknown option: " + w.text());
        env.err().println(" Use keyword 'where' to modify condition");
        return 1;
    }

    int unknownCondition(Word w) {
        env.err().println(" Unknown condition: " + w.text());
        env.err().println(" Use keyword 'set' to modify value");
        return 1;
    }

    /** Lists what {@code found} names under " Deleting WHAT...", asks to commit, and deletes each at {@code path}. */
    int deleteNamed(List<String> found, String what, String path) {
        if (found.isEmpty()) {
            env.out().println(" Nothing deleted");
            return 1;
        }
        env.out().println(" Deleting " + what + "...");
        found.forEach(n -> env.out().println("  " + n));
        if (!commit()) {
            return 0;
        }
        for (String n : found) {
            api().delete(path + HttpControllerApi.encode(n));
        }
        return 0;
    }
}
