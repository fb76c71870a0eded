package io.gantry.accounting;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.gantry.accounting.AccountingViews.Budget;
import io.gantry.api.PageRequest;
import io.gantry.api.PageResponse;
import io.gantry.security.CurrentUser;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;

/** The GrpTRESMins budgets with their burn rates, for the dashboard's accounting view (issue 32). */
@RestController
@RequestMapping("/api/v1")
@Tag(name = "budgets")
class BudgetController {

    private final BudgetOverview budgets;

    BudgetController(BudgetOverview budgets) {
        this.budgets = budgets;
    }

    @Operation(operationId = "listBudgets", summary = "Every GrpTRESMins budget per TRES, with its burn rate and run-out",
            description = "One item per TRES of each association's and each QOS's grpTresMins, associations first (by "
                    + "account, then user), then QOS by name. limitMinutes, usedMinutes and leftMinutes are what "
                    + "grpTresMins, grpTresMinsUsed and grpTresMinsLeft say. burnPerDay is what the budget's jobs used "
                    + "(ended jobs and running jobs so far, times the QOS usage factor) over the last 24 hours, or since "
                    + "the current gantry.fairshare.usage-reset-period began when that is later (rateSince), scaled to "
                    + "TRES-minutes a day; a reset with rawUsage=0 does not shorten that window. runsOutAt is when used "
                    + "reaches the limit at that rate, used decaying with the half-life and cleared at each reset "
                    + "period as it is; null when it does not at this rate. OPERATORs and ADMINs see every budget; a "
                    + "USER those that hold their jobs: of their own associations, of the accounts they are in and "
                    + "the accounts above, and of the QOS their associations allow.")
    @GetMapping("/budgets")
    PageResponse<Budget> listBudgets(@RequestParam(required = false) Integer page,
            @RequestParam(required = false) Integer size, CurrentUser caller) {
        return PageResponse.of(budgets.list(caller), PageRequest.of(page, size), b -> b);
    }
}
