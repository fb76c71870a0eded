package io.gantry.security;

import java.security.SecureRandom;

/**
 * New token epochs. Random rather than counted, so that a user deleted and created again under the
 * same name does not start over at an epoch the old user's tokens carry. Never 0: that is the epoch
 * of users and tokens from before epochs existed.
 */
final class TokenEpochs {

    /** Tokens issued before epochs existed carry no claim; they count as this epoch. */
    static final long NONE = 0L;

    private static final SecureRandom RANDOM = new SecureRandom();

    private TokenEpochs() {
    }

    static long next() {
        long epoch;
        do {
            epoch = RANDOM.nextLong();
        } while (epoch == NONE);
        return epoch;
    }
}
