import StampedeCLI

StampedeCLI.main()
