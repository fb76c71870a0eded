package io.gantry.cluster;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a bad cluster configuration into a short start-up message instead of a stack trace. */
class ClusterConfigFailureAnalyzer extends AbstractFailureAnalyzer<ClusterConfigException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ClusterConfigException cause) {
        return new FailureAnalysis(cause.getMessage(),
                "Fix the keys named above in the gantry.cluster configuration and start again.", cause);
    }
}
