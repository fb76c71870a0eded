package io.gantry.jobs;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

@Entity
@Table(name = "job_events")
class JobEventEntity {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    private long jobRow;
    @Column(name = "event_time")
    private Instant time;
    private String type;
    private String detail;

    protected JobEventEntity() {
    }

    JobEventEntity(long jobRow, Instant time, String type, String detail) {
        this.jobRow = jobRow;
        this.time = time;
        this.type = type;
        this.detail = detail;
    }

    Instant time() { return time; }
    String type() { return type; }
    String detail() { return detail; }
}
