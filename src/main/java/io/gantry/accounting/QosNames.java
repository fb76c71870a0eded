package io.gantry.accounting;

import java.util.List;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.cluster.KnownQos;

/** The QOS names, for the cluster feature to check the partition QOS it is given against. */
@Component
class QosNames implements KnownQos {

    private final QosRepository qos;

    QosNames(QosRepository qos) {
        this.qos = qos;
    }

    @Override
    @Transactional(readOnly = true)
    public List<String> qosNames() {
        return qos.findAllByOrderByName().stream().map(QosEntity::name).toList();
    }
}
