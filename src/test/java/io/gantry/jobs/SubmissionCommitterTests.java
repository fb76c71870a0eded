package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A group commit whose answer is lost: the store died or failed over while committing. Whether the
 * rows are there decides what the submitters hear, so that no submission is stored twice and none is
 * answered 201 without being stored.
 */
class SubmissionCommitterTests {

    /** The jobs the store holds, with ids from a sequence; a transaction's rows show only once it commits. */
    private static final class Store extends JobInserts {
        final Set<Long> committed = new HashSet<>();
        final List<Long> staged = new ArrayList<>();
        long sequence = 100;
        int inserts;
        boolean storeDown;
        boolean badRow;

        Store() {
            super(null);
        }

        @Override
        List<Long> nextJobIds(int count) {
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                ids.add(++sequence);
            }
            staged.addAll(ids);
            return ids;
        }

        @Override
        long nextJobId() {
            return nextJobIds(1).get(0);
        }

        @Override
        void insertAll(List<JobEntity> rows, List<Submitted> submitted) {
            inserts++;
            if (badRow) {
                throw new DataIntegrityViolationException("a bad row");
            }
        }

        @Override
        boolean stored(long jobId) {
            if (storeDown) {
                throw new DataAccessResourceFailureException("no store answers");
            }
            return committed.contains(jobId);
        }
    }

    /** Runs the work; the commit then happens, or not, and its answer may be lost. */
    private static final class Transactions extends TransactionTemplate {
        final Store store;
        boolean commitThenLoseAnswer;

        Transactions(Store store) {
            this.store = store;
        }

        @Override
        public <T> T execute(TransactionCallback<T> action) throws TransactionException {
            store.staged.clear();
            T result;
            try {
                result = action.doInTransaction(null);
            } catch (RuntimeException e) {
                store.staged.clear();
                throw e;
            }
            if (commitThenLoseAnswer) {
                commitThenLoseAnswer = false;
                store.committed.addAll(store.staged);
                throw new DataAccessResourceFailureException("An I/O error occurred while sending to the backend");
            }
            store.committed.addAll(store.staged);
            return result;
        }
    }

    private final Store store = new Store();
    private final Transactions transactions = new Transactions(store);
    private final List<Object> published = new ArrayList<>();
    private final SubmissionCommitter committer = new SubmissionCommitter(store, transactions, published::add);

    private static List<SubmissionCommitter.Pending> group(int size) {
        List<SubmissionCommitter.Pending> group = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            group.add(new SubmissionCommitter.Pending(List.of(), Instant.EPOCH, "submitted", new CompletableFuture<>()));
        }
        return group;
    }

    private static List<Long> answers(List<SubmissionCommitter.Pending> group) throws Exception {
        List<Long> ids = new ArrayList<>();
        for (SubmissionCommitter.Pending p : group) {
            ids.add(p.done().get());
        }
        return ids;
    }

    @Test
    void aGroupCommittedWhoseAnswerWasLostIsAnsweredWithItsIdsAndNotStoredAgain() throws Exception {
        transactions.commitThenLoseAnswer = true;
        List<SubmissionCommitter.Pending> group = group(3);

        committer.commitGroup(group);

        assertThat(answers(group)).containsExactly(101L, 102L, 103L);
        assertThat(store.committed).containsExactlyInAnyOrder(101L, 102L, 103L);
        assertThat(store.inserts).as("rows written").isEqualTo(1);
        // Published again once answered: in the store, the ones sent inside the failed transaction never fire.
        assertThat(published.subList(3, published.size())).containsExactly(new JobsChanged(101, "SUBMITTED"),
                new JobsChanged(102, "SUBMITTED"), new JobsChanged(103, "SUBMITTED"));
    }

    @Test
    void aGroupTheStoreCannotAccountForIsAnsweredWithTheFailureAndNotCommittedAgain() {
        transactions.commitThenLoseAnswer = true;
        store.storeDown = true;
        List<SubmissionCommitter.Pending> group = group(2);

        committer.commitGroup(group);

        for (SubmissionCommitter.Pending p : group) {
            assertThat(p.done()).isCompletedExceptionally();
        }
        assertThat(store.inserts).as("rows written").isEqualTo(1);
    }

    @Test
    void aGroupThatRolledBackIsCommittedOneByOneSoOneBadSubmissionFailsAlone() throws Exception {
        store.badRow = true;
        List<SubmissionCommitter.Pending> group = group(2);
        committer.commitGroup(group);
        for (SubmissionCommitter.Pending p : group) {
            try {
                p.done().get();
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(DataIntegrityViolationException.class);
                continue;
            }
            throw new AssertionError("a bad row was answered with an id");
        }
        assertThat(store.inserts).as("the group, then each alone").isEqualTo(3);

        store.badRow = false;
        List<SubmissionCommitter.Pending> good = group(2);
        committer.commitGroup(good);
        assertThat(answers(good)).hasSize(2).doesNotHaveDuplicates();
        assertThat(store.committed).containsExactlyInAnyOrderElementsOf(answers(good));
    }
}
