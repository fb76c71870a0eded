package io.gantry.accounting;

import java.util.List;

import org.springframework.data.jpa.repository.JpaRepository;

interface AccountRepository extends JpaRepository<AccountEntity, String> {

    List<AccountEntity> findAllByOrderByName();

    boolean existsByParent(String parent);
}
