package io.gantry.api;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import tools.jackson.core.JsonParser;
import tools.jackson.databind.BeanProperty;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.deser.jdk.StringDeserializer;
import tools.jackson.databind.module.SimpleModule;

/**
 * How request bodies are read: no text field takes a NUL character, which PostgreSQL cannot store
 * (a NUL reaching it ended the request in a 500). The refusal names the field like any other
 * unreadable value. Node agents' reports are exempt: a job's output, relayed as text, may hold NULs.
 */
@Configuration(proxyBeanMethods = false)
class JsonInput {

    @Bean
    JacksonModule textWithoutNul() {
        return new SimpleModule("text-without-nul").addDeserializer(String.class, new TextWithoutNul(true));
    }

    /** Records of many components (a submission) are built by one prepared call, see {@link RecordCreators}. */
    @Bean
    JacksonModule recordCreators() {
        return new RecordCreators();
    }

    static final class TextWithoutNul extends StringDeserializer {

        private final boolean strict;

        TextWithoutNul(boolean strict) {
            this.strict = strict;
        }

        @Override
        public ValueDeserializer<?> createContextual(DeserializationContext context, BeanProperty property) {
            String declaredIn = property != null && property.getMember() != null
                    ? property.getMember().getDeclaringClass().getPackageName() : "";
            // The node daemon's protocol records and the controller side's own (io.gantry.fleet).
            boolean agentProtocol = declaredIn.startsWith("io.gantry.noded") || declaredIn.startsWith("io.gantry.fleet");
            return agentProtocol ? new TextWithoutNul(false) : this;
        }

        @Override
        public String deserialize(JsonParser parser, DeserializationContext context) {
            String text = super.deserialize(parser, context);
            if (strict && text != null && text.indexOf('\0') >= 0) {
                return context.reportInputMismatch(this, "must not hold a NUL character (\\u0000)");
            }
            return text;
        }
    }
}
