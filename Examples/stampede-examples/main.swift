import ExampleSuites
import StampedeCLI

// The whole Stampede command line, with the example apps registered: every repro line this
// executable prints runs here (`stampede-examples run … --app NAME`).
StampedeCLI.main(apps: exampleSuites, program: "stampede-examples")
