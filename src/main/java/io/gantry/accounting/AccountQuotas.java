package io.gantry.accounting;

import io.gantry.accounting.AccountingViews.AccountRequest;
import io.gantry.api.GantryException.FieldError;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** An account's GPU quota (issue 16) as a create or update sets it, checked against the tree around it. */
final class AccountQuotas {

    private AccountQuotas() {
    }

    /**
     * Sets the account's quota fields the request names ({@code ""} clears one), then checks the tree
     * around it: its guarantee (per GPU key) is at least what its children are guaranteed together,
     * and with its siblings' at most its parent's (when the parent has a guarantee for that key; the
     * root's is the configured capacity). Every error is a 400 naming the field; nothing is written.
     */
    static void apply(AccountEntity account, AccountRequest request, Supplier<List<AccountEntity>> accounts) {
        List<FieldError> errors = new ArrayList<>();
        if (request.guaranteedTres() != null) {
            account.setGuaranteedTres(gpuTres("guaranteedTres", request.guaranteedTres(), errors));
        }
        if (request.maxBorrowTres() != null) {
            account.setMaxBorrowTres(gpuTres("maxBorrowTres", request.maxBorrowTres(), errors));
        }
        if (request.maxLendTres() != null) {
            account.setMaxLendTres(gpuTres("maxLendTres", request.maxLendTres(), errors));
        }
        AccountFields.throwIfAny(errors);
        if (request.guaranteedTres() == null && request.parent() == null) {
            return;
        }
        java.util.Map<String, Long> own = io.gantry.engine.Quota.parseGpus(account.guaranteedTres());
        List<AccountEntity> all = accounts.get();
        java.util.Map<String, Long> children = new java.util.HashMap<>();
        java.util.Map<String, Long> siblings = new java.util.HashMap<>(own);
        for (AccountEntity a : all) {
            if (a.name().equals(account.name())) {
                continue;
            }
            if (account.name().equals(a.parent())) {
                io.gantry.engine.Quota.parseGpus(a.guaranteedTres()).forEach((k, v) -> children.merge(k, v, Long::sum));
            }
            if (account.parent() != null && account.parent().equals(a.parent())) {
                io.gantry.engine.Quota.parseGpus(a.guaranteedTres()).forEach((k, v) -> siblings.merge(k, v, Long::sum));
            }
        }
        children.forEach((key, sum) -> {
            if (sum > 0 && own.getOrDefault(key, 0L) < sum) {
                errors.add(new FieldError("guaranteedTres", "account '" + account.name() + "' would be guaranteed "
                        + own.getOrDefault(key, 0L) + " " + gpuName(key) + " but its child accounts are guaranteed "
                        + sum + " together; a child's guarantee is part of its parent's"));
            }
        });
        if (account.parent() != null && !AccountingService.ROOT.equals(account.parent())) {
            AccountEntity parent = all.stream().filter(a -> a.name().equals(account.parent())).findFirst()
                    .orElse(null);
            java.util.Map<String, Long> theirs = parent == null ? java.util.Map.of()
                    : io.gantry.engine.Quota.parseGpus(parent.guaranteedTres());
            siblings.forEach((key, sum) -> {
                if (own.getOrDefault(key, 0L) > 0 && sum > theirs.getOrDefault(key, 0L)) {
                    errors.add(new FieldError("guaranteedTres", "the children of account '" + account.parent()
                            + "' would be guaranteed " + sum + " " + gpuName(key) + " together, more than its own "
                            + theirs.getOrDefault(key, 0L) + "; raise the parent's guaranteedTres first"));
                }
            });
        }
        AccountFields.throwIfAny(errors);
    }

    private static String gpuName(String key) {
        return key.isEmpty() ? "GPUs" : key + " GPUs";
    }

    /** GPU TRES text without blanks, or null to clear; a field error when it is not GPU TRES. */
    private static String gpuTres(String field, String text, List<FieldError> errors) {
        if (text.isBlank()) {
            return null;
        }
        String compact = text.replaceAll("\\s+", "");
        try {
            io.gantry.engine.Quota.parseGpus(compact);
        } catch (IllegalArgumentException e) {
            errors.add(new FieldError(field, e.getMessage()));
            return null;
        }
        return compact;
    }
}
