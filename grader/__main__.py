from grader import environment

try:
    from grader.cli import main
except ModuleNotFoundError as e:
    if not environment.is_dependency(e):
        raise
    raise SystemExit(environment.missing_module(e.name, error=True)) from None

raise SystemExit(main())
