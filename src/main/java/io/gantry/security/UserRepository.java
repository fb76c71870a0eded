package io.gantry.security;

import java.util.List;
import java.util.Optional;

import jakarta.persistence.LockModeType;

import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Lock;
import org.springframework.data.jpa.repository.Query;

interface UserRepository extends JpaRepository<UserEntity, Long> {

    Optional<UserEntity> findByUsername(String username);

    boolean existsByUsername(String username);

    /**
     * The enabled admins, locked: two admins removing each other at the same time must not both
     * succeed and leave the cluster without one.
     */
    @Lock(LockModeType.PESSIMISTIC_WRITE)
    @Query("select u from UserEntity u join u.roles r where r = 'ADMIN' and u.enabled = true")
    List<UserEntity> lockEnabledAdmins();
}
