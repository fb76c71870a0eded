package io.gantry.api;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;

import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.deser.SettableBeanProperty;
import tools.jackson.databind.deser.ValueInstantiator;
import tools.jackson.databind.deser.ValueInstantiators;
import tools.jackson.databind.deser.bean.PropertyValueBuffer;
import tools.jackson.databind.introspect.AnnotatedConstructor;
import tools.jackson.databind.module.SimpleModule;

/**
 * Reads a record with many components through its canonical constructor as one prepared call.
 * <p>
 * Jackson 3 calls a creator of more than one argument with {@code MethodHandle.invokeWithArguments},
 * which adapts the handle to the arguments' count on every call: for a submission's 47 components that
 * was 6 % of its request-thread CPU (issue 36's profile), more than reading the JSON. Here the handle
 * is spread over an {@code Object[]} once, per record type, and each body is one exact call. Whatever
 * the constructor throws is left to Jackson's own path (called again, it throws and is reported as
 * before), so a record that refuses its values is answered as it always was.
 */
final class RecordCreators extends SimpleModule {

    /** Fewer components than this are not worth it: Jackson's own call is quick for them. */
    static final int MIN_COMPONENTS = 6;

    RecordCreators() {
        super("record-creators");
    }

    @Override
    public void setupModule(SetupContext context) {
        super.setupModule(context);
        context.addValueInstantiators(new ValueInstantiators() {
            @Override
            public ValueInstantiator findValueInstantiator(DeserializationConfig config, BeanDescription.Supplier bean) {
                return null;
            }

            @Override
            public ValueInstantiator modifyValueInstantiator(DeserializationConfig config, BeanDescription.Supplier bean,
                    ValueInstantiator found) {
                return bean.isRecordType() ? Spread.around(found) : found;
            }
        });
    }

    /** The default instantiator, but for its with-arguments call. */
    static final class Spread extends ValueInstantiator.Delegating {

        private final MethodHandle create;

        private Spread(ValueInstantiator delegate, MethodHandle create) {
            super(delegate);
            this.create = create;
        }

        /** {@code found} itself when it does not create through a canonical constructor of many components. */
        static ValueInstantiator around(ValueInstantiator found) {
            if (found instanceof Spread || found == null || !found.canCreateFromObjectWith()
                    || !(found.getWithArgsCreator() instanceof AnnotatedConstructor creator)
                    || creator.getParameterCount() < MIN_COMPONENTS) {
                return found;
            }
            Constructor<?> constructor = creator.getAnnotated();
            try {
                constructor.setAccessible(true);
                MethodHandle create = MethodHandles.lookup().unreflectConstructor(constructor)
                        .asSpreader(Object[].class, constructor.getParameterCount())
                        .asType(MethodType.methodType(Object.class, Object[].class));
                return new Spread(found, create);
            } catch (IllegalAccessException | RuntimeException e) {
                return found;
            }
        }

        @Override
        public ValueInstantiator createContextual(DeserializationContext context, BeanDescription.Supplier bean) {
            ValueInstantiator contextual = delegate().createContextual(context, bean);
            return contextual == delegate() ? this : around(contextual);
        }

        @Override
        public Object createFromObjectWith(DeserializationContext context, SettableBeanProperty[] properties,
                PropertyValueBuffer buffer) {
            return createFromObjectWith(context, buffer.getParameters(context, properties));
        }

        @Override
        public Object createFromObjectWith(DeserializationContext context, Object[] args) {
            try {
                return (Object) create.invokeExact(args);
            } catch (Throwable refused) {
                // Jackson's own call throws it again, wrapped and reported as Jackson reports it.
                return delegate().createFromObjectWith(context, args);
            }
        }
    }
}
