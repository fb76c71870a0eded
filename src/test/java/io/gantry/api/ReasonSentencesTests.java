package io.gantry.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.gantry.engine.PendingReason;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every reason the engine gives reaches people in words: the committed OpenAPI document lists each
 * {@link PendingReason} (as Slurm spells it) in its {@code PendingReason} schema, and the dashboard's
 * sentence table (frontend/src/lib/pending.ts, typed by the schema generated from that document)
 * has one for each. Every reason the controller stores comes from the enum ({@code slurmName()}),
 * so a reason added to the engine without words fails here, without a browser.
 */
class ReasonSentencesTests {

    private static final Path DOCUMENT = Path.of("src", "main", "openapi", "gantry.json");
    private static final Path SENTENCES = Path.of("frontend", "src", "lib", "pending.ts");
    /** One entry a line: {@code  Code: 'sentence',} or {@code  'Code, with words': 'sentence',}. */
    private static final Pattern ENTRY = Pattern.compile(
            "^\\s+(?:'((?:[^'\\\\]|\\\\.)*)'|([A-Za-z]\\w*)):\\s*'((?:[^'\\\\]|\\\\.)*)',?$", Pattern.MULTILINE);

    private static final List<String> ENGINE = Arrays.stream(PendingReason.values()).map(PendingReason::slurmName).toList();

    @Test
    void theDocumentListsEveryReasonTheEngineGivesAndJobsReferToThatList() throws IOException {
        JsonNode schemas = JsonMapper.builder().build().readTree(Files.readString(DOCUMENT)).get("components").get("schemas");
        JsonNode reason = schemas.get(PendingReasonSchema.NAME);
        List<String> listed = new ArrayList<>();
        reason.get(SdkSchemas.EXTENSIBLE).forEach(v -> listed.add(v.asString()));
        assertThat(listed).as("the document's PendingReason (run scripts/update-openapi.sh)").isEqualTo(ENGINE);
        assertThat(reason.get("type").asString()).isEqualTo("string");
        assertThat(reason.has("enum")).as("open to new values, as every enum of the document").isFalse();
        for (String holder : List.of("Job", "JobPriority")) {
            assertThat(schemas.get(holder).get("properties").get("reason").get("$ref").asString())
                    .as(holder + ".reason").isEqualTo(PendingReasonSchema.REF);
        }
    }

    @Test
    void everyReasonHasASentenceForPeopleInTheDashboard() throws IOException {
        Map<String, String> sentences = sentences(Files.readString(SENTENCES));
        assertThat(sentences.keySet()).as("reasons with a sentence in " + SENTENCES).containsExactlyInAnyOrderElementsOf(ENGINE);
        sentences.forEach((code, sentence) -> assertThat(sentence).as(code)
                .matches("[A-Z][^.]*(\\.[^ ][^.]*)*")   // one sentence, its full stop added by whyPending
                .doesNotContain(code));
    }

    @Test
    void theSentenceTableIsReadAsTheDashboardWritesIt() {
        String table = """
                export const REASON_CLAUSES: Record<PendingReason, string> = {
                  None: 'The scheduler has not looked at it yet',
                  'ReqNodeNotAvail, Reserved for maintenance': 'Nodes it could use are set aside',
                  QuotaBorrowLimit: 'Its account already borrows as much of other accounts\\' idle guarantee',
                };
                const OTHER: Record<string, string> = {
                  Elsewhere: 'Not in the table',
                };
                """;
        assertThat(sentences(table)).containsExactly(
                Map.entry("None", "The scheduler has not looked at it yet"),
                Map.entry("ReqNodeNotAvail, Reserved for maintenance", "Nodes it could use are set aside"),
                Map.entry("QuotaBorrowLimit", "Its account already borrows as much of other accounts' idle guarantee"));
    }

    /** The entries of {@code REASON_CLAUSES}'s object literal, code to sentence. */
    private static Map<String, String> sentences(String source) {
        int start = source.indexOf("export const REASON_CLAUSES");
        assertThat(start).as("REASON_CLAUSES in " + SENTENCES).isNotNegative();
        int open = source.indexOf('{', source.indexOf('=', start));
        int close = source.indexOf("\n};", open);
        Map<String, String> entries = new LinkedHashMap<>();
        Matcher m = ENTRY.matcher(source.substring(open + 1, close));
        while (m.find()) {
            String code = m.group(1) != null ? unescape(m.group(1)) : m.group(2);
            assertThat(entries.put(code, unescape(m.group(3)))).as("a second sentence for " + code).isNull();
        }
        return entries;
    }

    private static String unescape(String quoted) {
        return quoted.replaceAll("\\\\(.)", "$1");
    }
}
