package io.gantry.api;

import java.lang.reflect.RecordComponent;
import java.util.Iterator;
import java.util.Map;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JavaType;

import io.swagger.v3.core.converter.AnnotatedType;
import io.swagger.v3.core.converter.ModelConverter;
import io.swagger.v3.core.converter.ModelConverterContext;
import io.swagger.v3.core.util.Json;
import io.swagger.v3.oas.models.media.Schema;

/**
 * Tells {@link SdkSchemas} which properties can never be null: a record's primitive components
 * ({@code long id}, {@code boolean exclusive}). springdoc describes {@code int} and {@code Integer}
 * alike; only the record knows.
 */
@Component
class NeverNull implements ModelConverter {

    @Override
    @SuppressWarnings("rawtypes")
    public Schema resolve(AnnotatedType type, ModelConverterContext context, Iterator<ModelConverter> chain) {
        Schema schema = chain.hasNext() ? chain.next().resolve(type, context, chain) : null;
        if (schema == null || type.getType() == null) {
            return schema;
        }
        JavaType javaType = Json.mapper().constructType(type.getType());
        Class<?> raw = javaType.getRawClass();
        if (!raw.isRecord()) {
            return schema;
        }
        Schema model = schema;
        if (schema.get$ref() != null) {
            String name = schema.get$ref().substring(schema.get$ref().lastIndexOf('/') + 1);
            model = context.getDefinedModels().get(name);
        }
        if (model == null || model.getProperties() == null) {
            return schema;
        }
        Map<String, Schema> properties = model.getProperties();
        for (RecordComponent component : raw.getRecordComponents()) {
            Schema property = properties.get(component.getName());
            if (property != null && component.getType().isPrimitive()) {
                property.addExtension(SdkSchemas.NOT_NULL, true);
            }
        }
        return schema;
    }
}
