package io.gantry;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The house rules that keep the engine pure and time injectable, checked on every build. */
class ArchitectureTests {

    private static JavaClasses production;

    @BeforeAll
    static void importProductionClasses() {
        production = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.gantry");
    }

    @Test
    void theEngineDependsOnNothingButTheJdk() {
        ArchRule rule = classes().that().resideInAPackage("io.gantry.engine..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "io.gantry.engine..")
                .because("the engine runs unchanged in the controller, the simulator and benchmarks");
        rule.check(production);
    }

    @Test
    void nothingReadsTheWallClockExceptThroughTheClockBean() {
        ArchRule rule = noClasses().should().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(java.time.Instant.class, "now")
                .orShould().callMethod(java.time.LocalDateTime.class, "now")
                .orShould().callMethod(java.time.OffsetDateTime.class, "now")
                .orShould().callMethod(java.time.ZonedDateTime.class, "now")
                .orShould().callMethod(java.time.LocalDate.class, "now")
                .orShould().callConstructor(java.util.Date.class)
                .because("time comes from the injected java.time.Clock so tests and the simulator control it");
        rule.check(production);
    }

    @Test
    void entitiesAndRepositoriesStayInsideTheirFeaturePackage() {
        ArchRule rule = classes().that().areAnnotatedWith(jakarta.persistence.Entity.class)
                .or().areAssignableTo(org.springframework.data.repository.Repository.class)
                .should().notBePublic()
                .because("services return records; entities never cross a package boundary");
        rule.check(production);
    }

    @Test
    void topLevelPackagesDependOnEachOtherWithoutCycles() {
        ArchRule rule = slices().matching("io.gantry.(*)..").should().beFreeOfCycles()
                .because("a feature depends on another through its API; two features that need each other are one tangle");
        rule.check(production);
    }

    /**
     * The engine's queue pass decides who goes first; the resource profile says what is free when
     * (issue 31). The pass asks the profile through its public methods and result records only, and
     * never touches what the profile is made of, so that either can change without the other.
     */
    @Test
    void theQueuePassUsesTheResourceProfileOnlyThroughItsPublicInterface() {
        DescribedPredicate<AccessTarget> hiddenInTheProfile = DescribedPredicate.describe(
                "a member of ResourceProfile that is not public",
                t -> t.getOwner().getName().startsWith("io.gantry.engine.ResourceProfile")
                        && t.resolveMember().map(m -> !m.getModifiers().contains(JavaModifier.PUBLIC)).orElse(true));
        ArchRule rule = noClasses().that().haveNameMatching("io\\.gantry\\.engine\\.QueuePass(\\$.*)?")
                .should().dependOnClassesThat().haveNameMatching("io\\.gantry\\.engine\\.(Availability|SharedGpus|FreeIndex"
                        + "|EarliestNodes|EarliestStarts|RoughStarts|BucketMins|ResourceProfile\\$Held)(\\$.*)?")
                .orShould().accessTargetWhere(JavaAccess.Predicates.target(hiddenInTheProfile))
                .because("the pass decides who goes first and the profile what is free when: the pass asks the "
                        + "profile through its public interface and result records, never through its insides");
        rule.check(production);
    }
}
