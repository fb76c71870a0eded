package io.gantry.accounting;

import java.util.List;
import java.util.Map;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.accounting.AccountingViews.Account;
import io.gantry.accounting.AccountingViews.AccountRequest;
import io.gantry.accounting.AccountingViews.Association;
import io.gantry.accounting.AccountingViews.AssociationRequest;
import io.gantry.accounting.AccountingViews.Qos;
import io.gantry.accounting.AccountingViews.QosRequest;
import io.gantry.audit.Actor;
import io.gantry.audit.Audit;
import io.gantry.audit.AuditAction;
import io.gantry.audit.AuditEntity;
import io.gantry.security.CurrentUser;

/**
 * Every write to accounts, associations, QOS and coordinators made through the API: who may make
 * it (an ADMIN, or a coordinator within Slurm's bounds), the change, and its audit record, all in one
 * transaction, so a refused or failed change leaves neither a change nor a record.
 */
@Service
class AccountingChanges {

    private final AccountingService accounting;
    private final AccountCoordinators coordinators;
    private final Audit audit;

    AccountingChanges(AccountingService accounting, AccountCoordinators coordinators, Audit audit) {
        this.accounting = accounting;
        this.coordinators = coordinators;
        this.audit = audit;
    }

    // --- accounts ---------------------------------------------------------------------------------

    @Transactional
    Account createAccount(CurrentUser caller, AccountRequest request) {
        String parent = request == null || request.parent() == null || request.parent().isBlank()
                ? AccountingService.ROOT : request.parent();
        Actor actor = coordinators.mayCreateAccountUnder(caller, parent);
        Account account = accounting.createAccount(request);
        audit.record(actor, AuditAction.CREATE, AuditEntity.ACCOUNT, account.name(), null, account);
        return account;
    }

    @Transactional
    Account updateAccount(CurrentUser caller, String name, AccountRequest request) {
        Actor actor = coordinators.mayChangeAccount(caller, name, "change it");
        if (request != null && request.parent() != null) {
            coordinators.mayCreateAccountUnder(caller, request.parent());
        }
        Account before = accounting.account(name);
        Account after = accounting.updateAccount(name, request);
        audit.record(actor, AuditAction.UPDATE, AuditEntity.ACCOUNT, name, before, after);
        return after;
    }

    @Transactional
    void deleteAccount(CurrentUser caller, String name) {
        Actor actor = coordinators.mayChangeAccount(caller, name, "delete it");
        Account before = accounting.account(name);
        accounting.deleteAccount(name);
        coordinators.forget(name);
        audit.record(actor, AuditAction.DELETE, AuditEntity.ACCOUNT, name, before, null);
    }

    @Transactional
    List<String> setCoordinators(CurrentUser caller, String account, List<String> users) {
        List<String> before = coordinators.of(account);
        List<String> after = coordinators.set(account, users);
        audit.record(Actor.staff(caller.username(), true), AuditAction.UPDATE, AuditEntity.COORDINATORS, account,
                Map.of("users", before), Map.of("users", after));
        return after;
    }

    // --- associations -----------------------------------------------------------------------------

    @Transactional
    Association createAssociation(CurrentUser caller, AssociationRequest request) {
        String account = request == null ? null : request.account();
        Actor actor = coordinators.mayWriteAssociation(caller, account, request == null ? null : request.user(),
                request, null, "add users to it");
        AssociationRequest effective = request;
        if (actor.authority() == Actor.Authority.COORDINATOR && request != null && request.qos() == null) {
            List<String> inherited = coordinators.inheritedQos(caller, account).orElse(null);
            effective = new AssociationRequest(request.account(), request.user(), request.shares(), request.maxJobs(),
                    request.maxSubmitJobs(), request.grpTres(), request.defaultQos(), inherited, request.grpTresMins(),
                    request.grpTresRunMins(), request.maxTresMinsPerJob(), request.rawUsage());
        }
        Association association = accounting.createAssociation(effective);
        audit.record(actor, AuditAction.CREATE, AuditEntity.ASSOCIATION, Long.toString(association.id()), null,
                association);
        return association;
    }

    @Transactional
    Association updateAssociation(CurrentUser caller, long id, AssociationRequest request) {
        Association before = accounting.association(id);
        Actor actor = coordinators.mayWriteAssociation(caller, before.account(), before.user(), request, before,
                "change its associations");
        Association after = accounting.updateAssociation(id, request);
        audit.record(actor, AuditAction.UPDATE, AuditEntity.ASSOCIATION, Long.toString(id), before, after);
        return after;
    }

    @Transactional
    void deleteAssociation(CurrentUser caller, long id) {
        Association before = accounting.association(id);
        Actor actor = coordinators.mayWriteAssociation(caller, before.account(), before.user(), null, before,
                "remove its associations");
        accounting.deleteAssociation(id);
        audit.record(actor, AuditAction.DELETE, AuditEntity.ASSOCIATION, Long.toString(id), before, null);
    }

    // --- QOS (ADMINs only; the controller checks) -------------------------------------------------

    @Transactional
    Qos createQos(CurrentUser admin, QosRequest request) {
        Qos qos = accounting.createQos(request);
        audit.record(Actor.staff(admin.username(), true), AuditAction.CREATE, AuditEntity.QOS, qos.name(), null, qos);
        return qos;
    }

    @Transactional
    Qos updateQos(CurrentUser admin, String name, QosRequest request) {
        Qos before = accounting.qos(name);
        Qos after = accounting.updateQos(name, request);
        audit.record(Actor.staff(admin.username(), true), AuditAction.UPDATE, AuditEntity.QOS, name, before, after);
        return after;
    }

    @Transactional
    void deleteQos(CurrentUser admin, String name) {
        Qos before = accounting.qos(name);
        accounting.deleteQos(name);
        audit.record(Actor.staff(admin.username(), true), AuditAction.DELETE, AuditEntity.QOS, name, before, null);
    }
}
