from vlkb.cli import main

main()
