package io.gantry.accounting;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.gantry.accounting.AccountingViews.Association;
import io.gantry.api.GantryException;
import io.gantry.api.PageRequest;
import io.gantry.api.PageResponse;
import io.gantry.security.CurrentUser;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;

/**
 * Reading associations, like {@code sacctmgr show association}: anyone signed in, except that with
 * {@code gantry.accounting.private-users} a USER's answer leaves out other users' associations
 * (see {@link UserVisibility}); the accounts' own associations stay.
 */
@RestController
@RequestMapping("/api/v1")
@Tag(name = "associations")
class AssociationQueries {

    private final AccountingService accounting;
    private final UserVisibility visibility;

    AssociationQueries(AccountingService accounting, UserVisibility visibility) {
        this.accounting = accounting;
        this.visibility = visibility;
    }

    @Operation(operationId = "listAssociations", summary = "List associations, like sacctmgr show association",
            description = "With gantry.accounting.private-users a USER gets only their own users' associations "
                    + "and those of the accounts they coordinate (with the accounts' own); OPERATORs and ADMINs "
                    + "get all.")
    @GetMapping("/associations")
    PageResponse<Association> listAssociations(
            @Parameter(description = "Only this account's") @RequestParam(required = false) String account,
            @Parameter(description = "Only this user's") @RequestParam(required = false) String user,
            @RequestParam(required = false) Integer page, @RequestParam(required = false) Integer size,
            CurrentUser caller) {
        UserVisibility.Names names = visibility.of(caller);
        return PageResponse.of(accounting.listAssociations(account, user).stream().filter(a -> shown(a, names))
                .toList(), PageRequest.of(page, size), a -> a);
    }

    @Operation(operationId = "getAssociation", summary = "One association",
            description = "404 for another user's association when gantry.accounting.private-users hides it.")
    @GetMapping("/associations/{id}")
    Association getAssociation(@PathVariable long id, CurrentUser caller) {
        Association association = accounting.association(id);
        if (!shown(association, visibility.of(caller))) {
            throw GantryException.notFound("Association", Long.toString(id));
        }
        return association;
    }

    private static boolean shown(Association a, UserVisibility.Names names) {
        return a.user() == null || names.shows(a.account(), a.user());
    }
}
