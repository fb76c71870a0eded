package io.gantry.accounting;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code gantry.accounting.*}. {@code privateUsers}: a USER sees no other user's name in
 * associations, fair share or priorities, except those of the accounts they coordinate (Slurm's
 * PrivateData=users); by default every user sees them all, as {@code sshare -a} shows them.
 */
@ConfigurationProperties("gantry.accounting")
public record AccountingProperties(@DefaultValue("false") boolean privateUsers) {
}
