package io.jckpt.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.core.importer.Locations;
import com.tngtech.archunit.library.dependencies.SliceRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packages of every module's main classes have no dependency cycle, and the library does not
 * depend on the tools. One cycle is left, named here: the API's root package (the facade, options,
 * exceptions) and its {@code data} and {@code spi} packages use each other, which the API module's
 * split ends (issue 29, item 3). The exemption is exact: a test fails once that cycle is gone, so
 * that the exemption goes with it. Perf's benchmarks in {@code io.jckpt.imem} (a package split across
 * two modules, to reach the ring's package-private parts) are tools, not the library.
 */
class PackageCyclesTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        // the modules' own jars or class folders on this test's class path (the reactor's), not their tests
        java.net.URI repo = java.nio.file.Path.of("..").toAbsolutePath().normalize().toUri();
        java.util.Set<Location> own = new java.util.HashSet<>();
        for (Location l : Locations.inClassPath()) {
            if (l.asURI().toString().contains(repo.getPath()) && !l.asURI().toString().contains("/.m2/")) {
                own.add(l);
            }
        }
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importLocations(own);
        // every module's main classes, not an empty import that passes every rule
        for (String module : new String[] {"io.jckpt.Ckpt", "io.jckpt.imem.ReplicaStore", "io.jckpt.disk.GenerationStore",
            "io.jckpt.policy.TwoLevelCheckpointer", "io.jckpt.runtime.launcher.Job", "io.jckpt.advisor.Advisor",
            "io.jckpt.cli.CommandLines", "io.jckpt.testkit.LaunchedJob", "io.jckpt.chaos.Campaign",
            "io.jckpt.perf.BenchSuite", "io.jckpt.samples.heat.HeatSolver", "io.jckpt.codes.ReedSolomon"}) {
            assertTrue(classes.contain(module), module + " not imported from this build's modules (run from the root"
                    + " reactor, e.g. mvn verify -pl architecture -am): " + own);
        }
    }

    private static SliceRule noCycles() {
        return slices().matching("io.(**)").namingSlices("$1").should().beFreeOfCycles();
    }

    @Test
    void noPackageCycleBeyondTheApisOwn() {
        noCycles().ignoreDependency(resideInAnyPackage("io.jckpt.data..", "io.jckpt.spi.."), resideInAPackage("io.jckpt"))
                .check(classes);
    }

    @Test
    void theApisCycleIsStillThereSoItsExemptionIsNeeded() {
        AssertionError e = assertThrows(AssertionError.class, () -> noCycles().check(classes),
                "the API's cycle is gone: remove its exemption from noPackageCycleBeyondTheApisOwn");
        assertTrue(e.getMessage().contains("jckpt.data") || e.getMessage().contains("jckpt.spi"), e.getMessage());
    }

    @Test
    void theLibraryDoesNotDependOnTheTools() {
        noClasses().that().resideInAnyPackage("io.jckpt", "io.jckpt.data..", "io.jckpt.spi..", "io.jckpt.image..",
                        "io.jckpt.imem..", "io.jckpt.disk..", "io.jckpt.policy..", "io.jckpt.runtime..", "io.jckpt.codes..")
                .and().haveSimpleNameNotEndingWith("Benchmark")
                .should().dependOnClassesThat().resideInAnyPackage("io.jckpt.advisor..", "io.jckpt.perf..",
                        "io.jckpt.chaos..", "io.jckpt.samples..", "io.jckpt.testkit..")
                .check(classes);
    }
}
