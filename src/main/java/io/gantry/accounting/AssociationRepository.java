package io.gantry.accounting;

import java.util.List;
import java.util.Optional;

import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;

interface AssociationRepository extends JpaRepository<AssociationEntity, Long> {

    List<AssociationEntity> findAllByOrderByAccountAscUserAsc();

    List<AssociationEntity> findByUserOrderByAccount(String user);

    List<AssociationEntity> findByAccountOrderByUser(String account);

    Optional<AssociationEntity> findByAccountAndUser(String account, String user);

    @Query("select a from AssociationEntity a where a.account = ?1 and a.user is null")
    Optional<AssociationEntity> findAccountOwn(String account);

    @Query("select count(a) > 0 from AssociationEntity a where a.account = ?1 and a.user is not null")
    boolean anyUserIn(String account);
}
