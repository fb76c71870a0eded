package io.gantry.accounting;

import java.net.URI;

import jakarta.validation.Valid;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;

import io.gantry.accounting.AccountingViews.Account;
import io.gantry.accounting.AccountingViews.AccountRequest;
import io.gantry.accounting.AccountingViews.Association;
import io.gantry.accounting.AccountingViews.AssociationRequest;
import io.gantry.accounting.AccountingViews.Qos;
import io.gantry.accounting.AccountingViews.QosRequest;
import io.gantry.api.PageRequest;
import io.gantry.security.CurrentUser;
import io.gantry.api.PageResponse;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;

/**
 * Accounts, associations and QOS, like sacctmgr: anyone signed in reads; an ADMIN writes, and so
 * does a coordinator below their account ({@link AccountCoordinators}); every write is audited.
 */
@RestController
@RequestMapping("/api/v1")
class AccountingController {

    private static final String ADMIN = "hasRole('ADMIN')";

    private final AccountingService accounting;

    private final AccountCoordinators coordinators;
    private final AccountingChanges changes;

    AccountingController(AccountingService accounting, AccountCoordinators coordinators, AccountingChanges changes) {
        this.accounting = accounting;
        this.coordinators = coordinators;
        this.changes = changes;
    }

    // --- accounts ---------------------------------------------------------------------------------

    @Tag(name = "accounts")
    @Operation(operationId = "listAccounts", summary = "List accounts, like sacctmgr show account")
    @GetMapping("/accounts")
    PageResponse<Account> listAccounts(@RequestParam(required = false) Integer page,
            @RequestParam(required = false) Integer size) {
        return PageResponse.of(accounting.listAccounts(), PageRequest.of(page, size), a -> a);
    }

    @Tag(name = "accounts")
    @Operation(operationId = "getAccount", summary = "One account")
    @GetMapping("/accounts/{name}")
    Account getAccount(@PathVariable String name) {
        return accounting.account(name);
    }

    @Tag(name = "accounts")
    @Operation(operationId = "createAccount", summary = "Create an account under a parent (default root) (ADMIN, or a coordinator of the parent)")
    @ApiResponse(responseCode = "201", description = "Created; Location names the new account")
    @ApiResponse(responseCode = "409", description = "An account with this name exists")
    @PostMapping("/accounts")
    ResponseEntity<Account> createAccount(@Valid @RequestBody AccountRequest request, CurrentUser caller) {
        Account account = changes.createAccount(caller, request);
        return ResponseEntity.created(location(account.name())).body(account);
    }

    @Tag(name = "accounts")
    @Operation(operationId = "updateAccount", summary = "Change an account's parent, description, organization or shares (ADMIN, or a coordinator of an account above it)")
    @PatchMapping("/accounts/{name}")
    Account updateAccount(@PathVariable String name, @Valid @RequestBody AccountRequest request, CurrentUser caller) {
        return changes.updateAccount(caller, name, request);
    }

    @Tag(name = "accounts")
    @Operation(operationId = "deleteAccount", summary = "Delete an account (not root; none with children, users or active jobs) (ADMIN, or a coordinator of an account above it)")
    @ApiResponse(responseCode = "204", description = "Deleted")
    @ApiResponse(responseCode = "409", description = "root, or the account has children, associations or active jobs")
    @DeleteMapping("/accounts/{name}")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    void deleteAccount(@PathVariable String name, CurrentUser caller) {
        changes.deleteAccount(caller, name);
    }

    @Tag(name = "accounts")
    @Operation(operationId = "getAccountCoordinators", summary = "The coordinators of an account, like sacctmgr show coordinator")
    @GetMapping("/accounts/{name}/coordinators")
    CoordinatorList coordinators(@PathVariable String name) {
        return new CoordinatorList(coordinators.of(name));
    }

    @Tag(name = "accounts")
    @Operation(operationId = "setAccountCoordinators", summary = "Name the users who may manage the account's sub-tree (ADMIN)")
    @PreAuthorize(ADMIN)
    @PutMapping("/accounts/{name}/coordinators")
    CoordinatorList setCoordinators(@PathVariable String name, @Valid @RequestBody CoordinatorList request,
            CurrentUser caller) {
        return new CoordinatorList(changes.setCoordinators(caller, name, request == null ? null : request.users()));
    }

    @io.swagger.v3.oas.annotations.media.Schema(name = "CoordinatorList")
    record CoordinatorList(@jakarta.validation.constraints.Size(max = 1000)
            java.util.List<@jakarta.validation.constraints.NotNull @jakarta.validation.constraints.Size(
                    max = AccountingViews.NAME) String> users) {
    }

    // --- associations -----------------------------------------------------------------------------

    // Reading them is AssociationQueries', which hides other users' names when they are private.

    @Tag(name = "associations")
    @Operation(operationId = "createAssociation", summary = "Add a user to an account, with shares and limits (ADMIN, or a coordinator of the account who is not that user, granting only QOS their account allows)")
    @ApiResponse(responseCode = "201", description = "Created; Location names the new association")
    @ApiResponse(responseCode = "409", description = "The user already has an association with this account")
    @PostMapping("/associations")
    ResponseEntity<Association> createAssociation(@Valid @RequestBody AssociationRequest request, CurrentUser caller) {
        Association association = changes.createAssociation(caller, request);
        return ResponseEntity.created(location(Long.toString(association.id()))).body(association);
    }

    @Tag(name = "associations")
    @Operation(operationId = "updateAssociation", summary = "Change an association's shares, limits or QOS (ADMIN, or a coordinator within the bounds of createAssociation; an account's own association only below the coordinator's account)")
    @PatchMapping("/associations/{id}")
    Association updateAssociation(@PathVariable long id, @Valid @RequestBody AssociationRequest request, CurrentUser caller) {
        return changes.updateAssociation(caller, id, request);
    }

    @Tag(name = "associations")
    @Operation(operationId = "deleteAssociation", summary = "Remove a user from an account (ADMIN, or a coordinator of the account who is not that user)")
    @ApiResponse(responseCode = "204", description = "Deleted")
    @ApiResponse(responseCode = "409", description = "An account's own association, the user's default account "
            + "while they have others, or the user has active jobs in it")
    @DeleteMapping("/associations/{id}")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    void deleteAssociation(@PathVariable long id, CurrentUser caller) {
        changes.deleteAssociation(caller, id);
    }

    // --- QOS --------------------------------------------------------------------------------------

    @Tag(name = "qos")
    @Operation(operationId = "listQos", summary = "List QOS, like sacctmgr show qos")
    @GetMapping("/qos")
    PageResponse<Qos> listQos(@RequestParam(required = false) Integer page,
            @RequestParam(required = false) Integer size) {
        return PageResponse.of(accounting.listQos(), PageRequest.of(page, size), q -> q);
    }

    @Tag(name = "qos")
    @Operation(operationId = "getQos", summary = "One QOS")
    @GetMapping("/qos/{name}")
    Qos getQos(@PathVariable String name) {
        return accounting.qos(name);
    }

    @Tag(name = "qos")
    @Operation(operationId = "createQos", summary = "Create a QOS (ADMIN)")
    @ApiResponse(responseCode = "201", description = "Created; Location names the new QOS")
    @ApiResponse(responseCode = "409", description = "A QOS with this name exists")
    @PreAuthorize(ADMIN)
    @PostMapping("/qos")
    ResponseEntity<Qos> createQos(@Valid @RequestBody QosRequest request, CurrentUser caller) {
        Qos qos = changes.createQos(caller, request);
        return ResponseEntity.created(location(qos.name())).body(qos);
    }

    @Tag(name = "qos")
    @Operation(operationId = "updateQos", summary = "Change a QOS's priority, limits or preemption (ADMIN)")
    @PreAuthorize(ADMIN)
    @PatchMapping("/qos/{name}")
    Qos updateQos(@PathVariable String name, @Valid @RequestBody QosRequest request, CurrentUser caller) {
        return changes.updateQos(caller, name, request);
    }

    @Tag(name = "qos")
    @Operation(operationId = "deleteQos", summary = "Delete a QOS no association, QOS or active job uses (ADMIN)")
    @ApiResponse(responseCode = "204", description = "Deleted")
    @ApiResponse(responseCode = "409", description = "normal, or the QOS is in use")
    @PreAuthorize(ADMIN)
    @DeleteMapping("/qos/{name}")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    void deleteQos(@PathVariable String name, CurrentUser caller) {
        changes.deleteQos(caller, name);
    }

    private static URI location(String name) {
        return ServletUriComponentsBuilder.fromCurrentRequest().path("/{name}").buildAndExpand(name).toUri();
    }
}
