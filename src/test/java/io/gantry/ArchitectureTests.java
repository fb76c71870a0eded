package io.gantry;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
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
}
