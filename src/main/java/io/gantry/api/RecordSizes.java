package io.gantry.api;

import java.lang.invoke.LambdaMetafactory;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import jakarta.validation.constraints.Size;

/**
 * The {@code @Size} limits of a request record's text fields, checked as Bean Validation would
 * check them (the same fields, the same "size must be between 0 and 128"), without its machinery.
 * <p>
 * A submission is the busiest body there is, and a record of some seventy fields of which twenty
 * carry a {@code @Size}: {@code @Valid} cost 6 % of a submission's request-thread CPU (issue 36's
 * profile), for twenty length comparisons. The annotations stay on the record, where the OpenAPI
 * document reads them as {@code maxLength}; the body's controller calls {@link #check} instead of
 * asking for {@code @Valid}. {@code RecordSizesTests} holds the answers to Hibernate Validator's.
 */
public final class RecordSizes {

    private static final String DEFAULT_MESSAGE = "{jakarta.validation.constraints.Size.message}";

    private static final ClassValue<List<Limit>> LIMITS = new ClassValue<>() {
        @Override
        protected List<Limit> computeValue(Class<?> type) {
            return limitsOf(type);
        }
    };

    private record Limit(String field, Function<Object, Object> accessor, int min, int max) {

        String message() {
            return "size must be between " + min + " and " + max;
        }
    }

    private RecordSizes() {
    }

    /**
     * A 400 problem naming every text field of {@code body} whose length is outside its {@code @Size}
     * (null fields are valid, as in Bean Validation); nothing when all are within.
     */
    public static void check(Record body) {
        List<GantryException.FieldError> errors = null;
        for (Limit limit : LIMITS.get(body.getClass())) {
            CharSequence value = (CharSequence) limit.accessor().apply(body);
            if (value != null && (value.length() < limit.min() || value.length() > limit.max())) {
                if (errors == null) {
                    errors = new ArrayList<>();
                }
                errors.add(new GantryException.FieldError(limit.field(), limit.message()));
            }
        }
        if (errors != null) {
            throw GantryException.invalid(errors);
        }
    }

    /**
     * The component's accessor as a plain function, made once: called through a method handle that is
     * not a constant, each read paid an argument cast and the handle's own dispatch.
     */
    @SuppressWarnings("unchecked")
    private static Function<Object, Object> accessor(MethodHandles.Lookup lookup, RecordComponent component) {
        try {
            MethodHandle target = lookup.unreflect(component.getAccessor());
            return (Function<Object, Object>) LambdaMetafactory.metafactory(lookup, "apply",
                    MethodType.methodType(Function.class), MethodType.methodType(Object.class, Object.class), target,
                    target.type()).getTarget().invokeExact();
        } catch (Throwable e) {
            throw new IllegalArgumentException(component.getDeclaringRecord().getSimpleName() + "." + component.getName()
                    + " cannot be read here (is the record public?)", e);
        }
    }

    private static List<Limit> limitsOf(Class<?> type) {
        if (!type.isRecord()) {
            throw new IllegalArgumentException(type + " is not a record");
        }
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        List<Limit> limits = new ArrayList<>();
        for (RecordComponent component : type.getRecordComponents()) {
            Size size = component.getAccessor().getAnnotation(Size.class);
            if (size == null) {
                continue;
            }
            if (!CharSequence.class.isAssignableFrom(component.getType()) || !DEFAULT_MESSAGE.equals(size.message())
                    || size.groups().length > 0) {
                throw new IllegalArgumentException(type.getSimpleName() + "." + component.getName()
                        + ": only @Size on text with Bean Validation's own message and no groups is checked here");
            }
            limits.add(new Limit(component.getName(), accessor(lookup, component), size.min(), size.max()));
        }
        return List.copyOf(limits);
    }
}
