from xoff.cli import main

main()
