-- Account coordinators (Slurm's sacctmgr add coordinator): users who may manage an account's
-- sub-tree (its sub-accounts and their users' associations) without being ADMINs.
CREATE TABLE account_coordinators (
    account    VARCHAR(64) NOT NULL,
    user_name  VARCHAR(64) NOT NULL,
    PRIMARY KEY (account, user_name)
);

CREATE INDEX account_coordinators_user ON account_coordinators (user_name);
