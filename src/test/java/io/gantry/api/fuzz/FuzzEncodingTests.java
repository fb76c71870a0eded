package io.gantry.api.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/** The fuzz's escapes, written by hand for speed, are the standard ones. */
class FuzzEncodingTests {

    @Test
    void everyByteIsPercentEncodedInUpperCaseHexButTheUnreservedOnes() {
        for (int c = 0; c < 256; c++) {
            byte[] utf8 = String.valueOf((char) c).getBytes(StandardCharsets.UTF_8);
            StringBuilder expected = new StringBuilder();
            for (byte b : utf8) {
                int u = b & 0xff;
                boolean unreserved = Character.isLetterOrDigit(u) && u < 0x80 || "-._~".indexOf(u) >= 0;
                expected.append(unreserved ? String.valueOf((char) u) : String.format("%%%02X", u));
            }
            assertThat(new String(FuzzGenerator.encode(String.valueOf((char) c)), StandardCharsets.US_ASCII))
                    .as("character %d", c).isEqualTo(expected.toString());
        }
    }

    @Test
    void controlCharactersAndLoneSurrogatesAreFourLowerCaseHexDigitEscapes() {
        for (char c : new char[] {0, 0x1f, '\ud800', '\udfff', '\udabc'}) {
            assertThat(FuzzJson.write(String.valueOf(c), new SplittableRandom(1)))
                    .as("character %04x", (int) c).isEqualTo("\"" + String.format("\\u%04x", (int) c) + "\"");
        }
        assertThat(FuzzJson.write("a\"b\\c\n", new SplittableRandom(1))).isEqualTo("\"a\\\"b\\\\c\\n\"");
    }
}
