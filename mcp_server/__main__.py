from mcp_server import main

raise SystemExit(main())
