package io.gantry.scheduling;

import java.time.Instant;
import java.util.List;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.gantry.accounting.UserVisibility;
import io.gantry.api.PendingReasonSchema;
import io.gantry.engine.Priority;
import io.gantry.engine.PriorityWeights;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.JobsProperties;
import io.gantry.security.CurrentUser;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;

/**
 * {@code GET /priority}: pending jobs' priorities factor by factor, like sprio. Private jobs keep a
 * USER to their own jobs; private users keep the jobs but hide the names of users the caller may
 * not see (their place in the queue is no secret, whose they are is).
 */
@RestController
@RequestMapping("/api/v1")
@Tag(name = "accounting")
class PriorityController {

    private final PriorityBoard board;
    private final JobsProperties jobsProperties;
    private final UserVisibility visibility;

    PriorityController(PriorityBoard board, JobsProperties jobsProperties, UserVisibility visibility) {
        this.board = board;
        this.jobsProperties = jobsProperties;
        this.visibility = visibility;
    }

    @Schema(name = "PriorityFactors", description = "Each factor in [0,1]; the weighted sum minus nice is the priority")
    record Factors(double age, double fairShare, double jobSize, double partition, double qos, double shortJob,
            double expansion,
            @Schema(description = "PriorityWeightTRES: in weights the TRES weights (CPU=1000,GRES/gpu=3000), in factors "
                    + "each TRES's share of its partition's total, in weighted each weighted value (cpu=12,gres/gpu=375); "
                    + "empty without TRES weights", example = "cpu=12,gres/gpu=375") String tres) {
    }

    @Schema(name = "JobPriority", example = """
            {"jobId":"42","user":"alice","account":"physics","partition":"gpu","qos":"normal","priority":20150,
             "reason":"Resources","nice":0,"factors":{"age":0.001,"fairShare":0.5,"jobSize":0.98,"partition":1.0,
             "qos":0.0,"shortJob":0.31,"expansion":0.02},
             "weighted":{"age":1000,"fairShare":5000,"jobSize":980,"partition":10000,"qos":0,"shortJob":9300,"expansion":0}}""")
    record JobPriority(String jobId,
            @Schema(description = "Its owner; null when gantry.accounting.private-users hides the name from the "
                    + "caller") String user,
            String account, String partition, String qos, long priority,
            @Schema(ref = PendingReasonSchema.REF) String reason, int nice, Factors factors, Factors weighted) {
    }

    @Schema(name = "PriorityList")
    record PriorityList(@Schema(description = "When the scheduler computed these (its last cycle)") Instant computedAt,
            @Schema(description = "The weights, like PriorityWeight* in slurm.conf") Factors weights,
            List<JobPriority> jobs) {
    }

    @Operation(operationId = "listPriorities", summary = "Pending jobs' priorities with each factor, like sprio",
            description = "With gantry.jobs.private-jobs a USER gets only their own jobs; with "
                    + "gantry.accounting.private-users other users' names are null (and user= finds none of "
                    + "their jobs) except in the accounts the caller coordinates. OPERATORs and ADMINs get all.")
    @GetMapping("/priority")
    PriorityList list(@Parameter(description = "Only this user's jobs") @RequestParam(required = false) String user,
            @Parameter(description = "Only this account's jobs") @RequestParam(required = false) String account,
            CurrentUser caller) {
        boolean ownOnly = jobsProperties.privateJobs() && !caller.isOperator();
        UserVisibility.Names names = visibility.of(caller);
        PriorityBoard.Board b = board.current();
        PriorityWeights w = b.weights();
        Factors weights = w == null ? null : new Factors(w.age(), w.fairShare(), w.jobSize(), w.partition(), w.qos(),
                w.shortJob(), w.expansion(), w.tres().toString());
        List<JobPriority> jobs = b.entries().stream()
                .filter(e -> !ownOnly || caller.username().equals(e.job().user()))
                .filter(e -> account == null || account.equals(e.job().account()))
                .map(e -> view(e.job(), e.waiting(), w, names.shows(e.job().account(), e.job().user())))
                .filter(p -> user == null || user.equals(p.user())).toList();
        return new PriorityList(b.at(), weights, jobs);
    }

    private static JobPriority view(ActiveJob job, io.gantry.engine.Waiting waiting, PriorityWeights w,
            boolean named) {
        Priority p = waiting.priority();
        io.gantry.engine.TresFactors t = p.tres();
        String raw = w.tres().isNone() ? "" : String.format(java.util.Locale.ROOT,
                "cpu=%.6f,mem=%.6f,node=%.6f,gres/gpu=%.6f", t.cpu(), t.mem(), t.node(), t.gpu());
        Factors factors = new Factors(p.age(), p.fairShare(), p.jobSize(), p.partition(), p.qos(), p.shortJob(),
                p.expansion(), raw);
        Factors weighted = new Factors(Math.round(w.age() * p.age()), Math.round(w.fairShare() * p.fairShare()),
                Math.round(w.jobSize() * p.jobSize()), Math.round(w.partition() * p.partition()),
                Math.round(w.qos() * p.qos()), Math.round(w.shortJob() * p.shortJob()),
                Math.round(w.expansion() * p.expansion()), t.text(w.tres()));
        return new JobPriority(job.displayId(), named ? job.user() : null, job.account(), String.join(",", job.partitions()),
                job.qos(), p.value(), waiting.reason().slurmName(), p.nice(), factors, weighted);
    }
}
