"""Word lists for the rule-based extractor in `kbtui.graph.extract` (data only, no logic).

Everything here is general English / general knowledge: common technologies, well-known
organisations, large places, international first names, and the cue phrases that signal a
relationship. Multi-word entries are matched token by token, case-insensitively; the spelling
given here is the display name. Keep entries lower-case-unique within one list.
"""

from __future__ import annotations


def _words(text: str) -> tuple[str, ...]:
    """Entries separated by `|` (entries may contain spaces)."""
    return tuple(w.strip() for w in text.split("|") if w.strip())


TECHNOLOGIES = _words(
    # languages
    "Python|JavaScript|TypeScript|Java|Kotlin|Swift|Objective-C|Go|Golang|Rust|C|C++|C#|F#|Ruby|"
    "PHP|Perl|Scala|Clojure|Haskell|Erlang|Elixir|OCaml|Julia|R|MATLAB|Lua|Dart|Zig|Nim|Crystal|"
    "Fortran|COBOL|Pascal|Delphi|Assembly|WebAssembly|Wasm|Bash|PowerShell|SQL|GraphQL|HTML|CSS|"
    "Sass|Solidity|Groovy|Visual Basic|VHDL|Verilog|SystemVerilog|Lisp|Scheme|Racket|Prolog|Elm|"
    "CoffeeScript|Mojo|"
    # web and app frameworks
    "React|React Native|Next.js|Node.js|Deno|Bun|Vue|Vue.js|Nuxt|Angular|AngularJS|Svelte|"
    "SvelteKit|Ember.js|jQuery|Redux|Tailwind|Tailwind CSS|Bootstrap|Django|Flask|FastAPI|"
    "Ruby on Rails|Rails|Sinatra|Laravel|Symfony|Spring|Spring Boot|Express|Express.js|NestJS|"
    "ASP.NET|.NET|Blazor|Phoenix LiveView|Electron|Tauri|Flutter|SwiftUI|UIKit|Jetpack Compose|"
    "Xamarin|Ionic|Qt|GTK|Textual|Streamlit|Gradio|htmx|Remix|Astro|Gatsby|Hugo|Jekyll|Vite|"
    "Webpack|Babel|esbuild|Rollup|Storybook|Jest|Mocha|Cypress|Playwright|Selenium|Puppeteer|"
    "pytest|JUnit|gRPC|REST|OpenAPI|Swagger|WebSocket|WebRTC|OAuth|OAuth 2.0|OpenID Connect|JWT|"
    "SAML|Auth0|Okta|Keycloak|Stripe API|Twilio|"
    # data, ML
    "NumPy|SciPy|pandas|Polars|scikit-learn|Matplotlib|Jupyter|TensorFlow|TensorFlow Lite|"
    "TensorFlow Lite Micro|TFLite|PyTorch|Keras|JAX|ONNX|ONNX Runtime|Hugging Face Transformers|"
    "spaCy|NLTK|OpenCV|XGBoost|LightGBM|MLflow|Ray|Dask|Apache Spark|Spark|Hadoop|Airflow|"
    "Apache Airflow|dbt|Kafka|Apache Kafka|Flink|Apache Flink|Beam|RabbitMQ|NATS|ZeroMQ|Celery|"
    "LangChain|LlamaIndex|llama.cpp|Ollama|vLLM|CUDA|cuDNN|OpenCL|Metal|Vulkan|OpenGL|DirectX|"
    "Unity|Unreal Engine|Godot|Blender|"
    # databases and search
    "PostgreSQL|Postgres|MySQL|MariaDB|SQLite|Oracle Database|SQL Server|MongoDB|Redis|Valkey|"
    "Memcached|Cassandra|ScyllaDB|DynamoDB|CouchDB|Couchbase|Neo4j|Elasticsearch|OpenSearch|Solr|"
    "ClickHouse|DuckDB|Snowflake|BigQuery|Redshift|InfluxDB|TimescaleDB|Prometheus|Grafana|"
    "Kibana|Logstash|Firebase|Firestore|Supabase|CockroachDB|FoundationDB|etcd|Consul|Vault|"
    "Pinecone|Weaviate|Qdrant|Milvus|FAISS|pgvector|LevelDB|RocksDB|LMDB|"
    # infrastructure, cloud, tooling
    "Docker|Docker Compose|Podman|Kubernetes|k8s|Helm|Istio|Envoy|Linkerd|Nginx|Apache HTTP Server|"
    "HAProxy|Traefik|Caddy|Terraform|Pulumi|Ansible|Chef|Puppet|Vagrant|Packer|Nomad|OpenShift|"
    "AWS|Amazon Web Services|AWS Lambda|Amazon S3|S3|EC2|ECS|EKS|CloudFront|Azure|Microsoft Azure|"
    "Google Cloud|Google Cloud Platform|GCP|Cloud Run|App Engine|Firebase Hosting|Heroku|Vercel|"
    "Netlify|Cloudflare Workers|DigitalOcean|Linode|Fly.io|Render|Jenkins|GitHub Actions|"
    "GitLab CI|CircleCI|Travis CI|Buildkite|Argo CD|Spinnaker|Git|GitHub|GitLab|Bitbucket|"
    "Mercurial|Subversion|Jira|Confluence|Slack|Notion|Obsidian|Figma|Sketch|Trello|Asana|Linear|"
    "Sentry|Datadog|New Relic|PagerDuty|Splunk|OpenTelemetry|Jaeger|Zipkin|CMake|Make|Bazel|"
    "Gradle|Maven|npm|Yarn|pnpm|pip|Poetry|Cargo|Conda|Homebrew|Nix|LLVM|GCC|Clang|VS Code|"
    "Visual Studio|IntelliJ|Xcode|Android Studio|Vim|Neovim|Emacs|tmux|"
    # platforms, operating systems, hardware
    "Linux|Ubuntu|Debian|Fedora|Arch Linux|Alpine|CentOS|Red Hat Enterprise Linux|Windows|macOS|"
    "iOS|iPadOS|watchOS|Android|Wear OS|FreeBSD|Zephyr|Zephyr RTOS|FreeRTOS|Embedded Rust|"
    "Arduino|Raspberry Pi|ESP32|STM32|nRF52|RISC-V|ARM|x86|FPGA|Bluetooth|Bluetooth LE|BLE|"
    "Wi-Fi|Zigbee|LoRa|LoRaWAN|USB-C|MQTT|CAN bus|I2C|SPI|UART|KiCad|Altium|SolidWorks|Fusion 360|"
    "AutoCAD|OnShape|"
    # AI products and models
    "ChatGPT|GPT-4|GPT-4o|Claude|Gemini|Llama|Mistral|Whisper|Stable Diffusion|BERT|"
    "word2vec|Copilot|GitHub Copilot|"
    # collaboration and more infrastructure
    "Microsoft Teams|Teams|Google Docs|Google Drive|Google Sheets|Google Meet|Zoom|Miro|"
    "Loom|Discord|Mattermost|k6|Locust|JMeter|ROS|Gazebo|Home Assistant|OpenWrt|"
    "Proxmox|Kubeflow|SageMaker|Vertex AI|Bedrock|Lambda|Step Functions|Cloud Functions|"
    "Azure Functions|CloudFormation|Kustomize|Flux|Argo Workflows|Tekton|SonarQube|Snyk|"
    "Dependabot|Renovate|Prettier|ESLint|Ruff|mypy|Black|Pydantic|SQLAlchemy|Alembic|Prisma|"
    "Drizzle|Hibernate|Entity Framework|GraphQL Apollo|Apollo Server|Relay|tRPC|Zod|"
    "Tokio|Actix|Axum|Rocket|Serde|WebGPU|Three.js|D3|D3.js|Plotly|Tableau|Power BI|Looker|"
    "Metabase|Superset|Excel|PowerPoint|Word|Outlook|SharePoint|OneDrive|Dropbox Paper|"
    "Salesforce CRM|HubSpot|Zendesk|Intercom|Mixpanel|Amplitude|Segment|PostHog|LaunchDarkly|"
    "Auth.js|Clerk|Supabase Auth|Mapbox|Leaflet|OpenStreetMap|QGIS|PostGIS|GDAL"
)

# Names that are also ordinary English words or first names: only taken when written with a
# capital letter, and at the start of a sentence only when a verb-like word follows.
AMBIGUOUS_NAMES = frozenset(
    _words(
        # technologies
        "go|rust|swift|julia|ruby|r|c|spring|express|rails|make|chef|puppet|vault|ray|beam|metal|"
        "render|linear|sketch|slack|notion|unity|consul|nomad|react|ember|jest|mocha|hugo|astro|"
        "remix|celery|flask|bootstrap|caddy|envoy|helm|nix|cargo|poetry|git|arm|assembly|"
        "scheme|racket|elm|crystal|gemini|claude|llama|whisper|copilot|bun|windows|spark|storybook|"
        "delphi|pascal|ionic|mojo|nim|zig|rest|yarn|airflow|obsidian|electron|blender|"
        "packer|vagrant|asana|sentry|maven|homebrew|vim|mistral|bert|alpine|fedora|android|"
        "zephyr|pinecone|mercurial|subversion|lisp|dart|sinatra|tailwind|angular|svelte|gatsby|"
        "jekyll|babel|rollup|cypress|playwright|selenium|puppeteer|swagger|snowflake|"
        "cassandra|teams|word|excel|black|flux|relay|rocket|lambda|bedrock|segment|amplitude|"
        "intercom|leaflet|looker|loom|clerk|drizzle|outlook|locust|prettier|d3|"
        # organisations
        "apple|amazon|meta|block|box|square|snap|wise|shell|visa|valve|zoom|canonical|oracle|"
        "discord|uber|bain|ford|twitter|cohere|mila|who|sap|hp|ey|intel|x|lg|"
        # places
        "china|turkey|chile|us|lima"
    )
)

ORGANIZATIONS = _words(
    "Google|Alphabet|Apple|Microsoft|Amazon|Meta|Facebook|Netflix|Spotify|Airbnb|Uber|Lyft|Stripe|"
    "Shopify|Salesforce|Oracle|IBM|Intel|AMD|Nvidia|NVIDIA|Qualcomm|Arm Holdings|Samsung|Sony|LG|"
    "Huawei|Xiaomi|Lenovo|Dell|HP|Cisco|Siemens|Bosch|Philips|Nokia|Ericsson|Tesla|SpaceX|"
    "Boeing|Airbus|Toyota|Honda|BMW|Volkswagen|Mercedes-Benz|Ford|General Motors|OpenAI|"
    "Anthropic|DeepMind|Google DeepMind|Mistral AI|Cohere|Hugging Face|Stability AI|Databricks|"
    "Snowflake Inc|Palantir|Atlassian|GitHub Inc|Mozilla|Canonical|Red Hat|SUSE|JetBrains|"
    "Adobe|Autodesk|SAP|VMware|Dropbox|Box|Slack Technologies|Zoom|Twitter|X Corp|LinkedIn|"
    "Pinterest|Snap|Reddit|Discord|Twitch|TikTok|ByteDance|Tencent|Alibaba|Baidu|Yandex|"
    "Booking.com|Zalando|Klarna|Revolut|Monzo|N26|Wise|PayPal|Square|Block|Visa|Mastercard|"
    "Goldman Sachs|JPMorgan|Morgan Stanley|BlackRock|Deloitte|McKinsey|Accenture|KPMG|PwC|"
    "EY|Bain|BCG|Cloudflare|Fastly|Akamai|DigitalOcean Inc|Vercel Inc|Datadog Inc|Twilio Inc|"
    "Coinbase|Figma Inc|Canva|Notion Labs|Asana Inc|Unity Technologies|Epic Games|Valve|"
    "Nintendo|Ubisoft|Electronic Arts|Garmin|Fitbit|Dyson|Ikea|IKEA|Unilever|Nestlé|Pfizer|"
    "Moderna|Novartis|Roche|Bayer|BASF|Shell|BP|Siemens Healthineers|Medtronic|"
    # universities, research organisations, public bodies
    "MIT|Stanford|Harvard|Berkeley|UC Berkeley|Caltech|Carnegie Mellon|CMU|Princeton|Yale|"
    "Columbia|Cornell|Oxford University|Cambridge University|Imperial College|UCL|ETH|"
    "ETH Zurich|EPFL|"
    "TU Munich|TU Delft|KTH|INRIA|Inria|CNRS|Max Planck Institute|Fraunhofer|CERN|NASA|ESA|"
    "NIH|NSF|DARPA|Mila|Allen Institute|AI2|Alan Turing Institute|Tsinghua|Peking University|"
    "University of Tokyo|National University of Singapore|NUS|University of Toronto|"
    "Apache Software Foundation|Linux Foundation|Python Software Foundation|Mozilla Foundation|"
    "Wikimedia Foundation|W3C|IETF|ISO|European Commission|United Nations|UNICEF|WHO"
)

# Words that end an organisation's name ("Pebblefield Labs", "Acme Corp", "Open Tide Foundation").
ORG_SUFFIXES = frozenset(
    _words(
        "inc|ltd|llc|gmbh|ag|sa|plc|corp|corporation|co|company|labs|lab|laboratory|foundation|"
        "university|institute|college|school|academy|group|holdings|industries|systems|technologies|"
        "software|solutions|partners|capital|ventures|bank|health|healthcare|media|studio|studios|"
        "electronics|robotics|motors|networks|analytics|consulting|agency|association|society|"
        "council|ministry|hospital|clinic|bv|nv|oy|ab|pty|kk|dynamics|aerospace|therapeutics|"
        "pharmaceuticals|biosciences|logistics|energy|semiconductor|instruments|devices|games|"
        "entertainment|insurance|airlines|interactive"
    )
)
# Suffixes after which "of X" continues the name ("University of Toronto", "Bank of America").
ORG_OF_HEADS = frozenset(_words("university|institute|bank|college|school|academy|ministry"))

LOCATIONS = _words(
    "Afghanistan|Argentina|Australia|Austria|Bangladesh|Belgium|Brazil|Bulgaria|Canada|Chile|"
    "China|Colombia|Croatia|Czechia|Czech Republic|Denmark|Egypt|Estonia|Ethiopia|Finland|France|"
    "Germany|Ghana|Greece|Hungary|Iceland|India|Indonesia|Iran|Iraq|Ireland|Israel|Italy|Japan|"
    "Kenya|Latvia|Lithuania|Luxembourg|Malaysia|Mexico|Morocco|Netherlands|New Zealand|Nigeria|"
    "Norway|Pakistan|Peru|Philippines|Poland|Portugal|Romania|Russia|Saudi Arabia|Serbia|"
    "Singapore|Slovakia|Slovenia|South Africa|South Korea|Korea|Spain|Sweden|Switzerland|Taiwan|"
    "Thailand|Turkey|Ukraine|United Arab Emirates|UAE|United Kingdom|UK|United States|USA|US|"
    "Vietnam|Europe|Asia|Africa|North America|South America|Latin America|Scandinavia|"
    "Silicon Valley|Bay Area|California|Texas|New York State|Washington State|Bavaria|Catalonia|"
    "Scotland|England|Wales|Ontario|Quebec|"
    "Amsterdam|Athens|Atlanta|Austin|Bangalore|Bengaluru|Bangkok|Barcelona|Beijing|Berlin|Bern|"
    "Bogotá|Bordeaux|Boston|Brussels|Bucharest|Budapest|Buenos Aires|Cairo|Cambridge|Cape Town|"
    "Chicago|Cologne|Copenhagen|Dallas|Delhi|New Delhi|Denver|Dubai|Dublin|Edinburgh|Frankfurt|"
    "Geneva|Glasgow|Gothenburg|Hamburg|Helsinki|Ho Chi Minh City|Hong Kong|Houston|Hyderabad|"
    "Istanbul|Jakarta|Johannesburg|Kraków|Krakow|Kyiv|Kyoto|Lagos|Lausanne|Lima|Lisbon|"
    "Ljubljana|London|Los Angeles|Lyon|Madrid|Manchester|Manila|Marseille|Melbourne|"
    "Mexico City|Miami|Milan|Montreal|Moscow|Mumbai|Munich|Nairobi|Naples|New York|New York City|"
    "NYC|Osaka|Oslo|Ottawa|Oxford|Palo Alto|Paris|Philadelphia|Porto|Prague|Pune|Reykjavik|Riga|"
    "Rio de Janeiro|Rome|Rotterdam|San Diego|San Francisco|San Jose|Santiago|São Paulo|Sao Paulo|"
    "Seattle|Seoul|Shanghai|Shenzhen|Stockholm|Stuttgart|Sydney|Taipei|Tallinn|"
    "Tel Aviv|The Hague|Tokyo|Toronto|Turin|Utrecht|Valencia|Vancouver|Venice|Vienna|"
    "Vilnius|Warsaw|Washington|Washington D.C.|Wellington|Zurich|Zürich|Mountain View|Redmond|"
    "Cupertino|Menlo Park|Brooklyn|Manhattan"
)

FIRST_NAMES = frozenset(
    n.lower()
    for n in _words(
        # English / European
        "Aaron|Adam|Adrian|Alan|Albert|Alex|Alexander|Alexandra|Alice|Alicia|Alison|Amanda|Amy|"
        "Andrew|Andy|Angela|Anna|Anne|Annie|Anthony|Arthur|Ashley|Barbara|Ben|Benjamin|Beth|"
        "Bill|Bob|Brad|Brandon|Brian|Bruce|Caroline|Carl|Carol|Caroline|Catherine|Charles|"
        "Charlie|Charlotte|Chloe|Chris|Christian|Christina|Christine|Christopher|Claire|Colin|"
        "Craig|Dan|Dana|Daniel|Danny|David|Dave|Deborah|Dennis|Diana|Donald|Donna|Dorothy|"
        "Doug|Douglas|Dylan|Edward|Eleanor|Elizabeth|Ellen|Emily|Emma|Eric|Ethan|Eva|Evan|Frank|"
        "Fred|Gary|George|Grace|Greg|Gregory|Hannah|Harry|Heather|Helen|Henry|Ian|Isaac|Isabel|"
        "Isabella|Jack|Jacob|James|Jamie|Jane|Janet|Jason|Jeff|Jeffrey|Jennifer|Jenny|Jeremy|"
        "Jessica|Jim|Joe|John|Johnny|Jon|Jonathan|Jordan|Joseph|Josh|Joshua|Judy|Julia|Julie|"
        "Justin|Karen|Kate|Katherine|Kathy|Keith|Kelly|Ken|Kevin|Kim|Kyle|Larry|Laura|Lauren|"
        "Leo|Liam|Linda|Lisa|Lucy|Luke|Margaret|Maria|Mark|Martin|Mary|Matt|Matthew|Megan|"
        "Melissa|Mia|Michael|Michelle|Mike|Molly|Nancy|Natalie|Nathan|Nicholas|Nick|Nicole|Noah|"
        "Oliver|Olivia|Owen|Pamela|Patrick|Paul|Peter|Phil|Philip|Rachel|Rebecca|Richard|Rick|"
        "Rob|Robert|Roger|Ronald|Rose|Ruth|Ryan|Sam|Samantha|Samuel|Sandra|Sara|Sarah|Scott|"
        "Sean|Sharon|Simon|Sophia|Sophie|Stephanie|Stephen|Steve|Steven|Susan|Thomas|Tim|"
        "Timothy|Tina|Todd|Tom|Tony|Tyler|Victoria|Vincent|Walter|Wendy|William|Will|Zoe|"
        "Guido|Linus|Grant|Marcus|Felix|Lena|Ines|Sofia|Sofía|Tomas|Tomás|Andrei|Andrey|Dmitri|"
        "Dmitry|Ivan|Igor|Olga|Natasha|Sergei|Sergey|Mikhail|Anastasia|Tatiana|Katya|Yuri|Pavel|"
        "Jan|Jana|Jonas|Lukas|Lucas|Luca|Marco|Matteo|Giulia|Giovanni|Francesca|Alessandro|"
        "Elena|Chiara|Pierre|Jean|Marie|Camille|Louis|Julien|Antoine|Chloé|Léa|Hugo|Mathieu|"
        "Hans|Jürgen|Klaus|Stefan|Anja|Katrin|Sabine|Tobias|Florian|Maximilian|Niklas|Lars|"
        "Erik|Henrik|Ingrid|Astrid|Sven|Anders|Nils|Magnus|Freya|Emil|Oskar|Mateusz|Piotr|"
        "Agnieszka|Katarzyna|Tomasz|Javier|Carlos|Carmen|Lucia|Lucía|Pablo|Diego|Alejandro|"
        "Miguel|Juan|José|Jose|Luis|Ana|Isabela|Gabriel|Rafael|Beatriz|João|Joao|Pedro|Mariana|"
        "Ricardo|Fernando|Valentina|Camila|Mateo|Santiago|Daniela|Paula|Nora|Noor|Maya|Mina|"
        # African, Middle Eastern, South / East Asian
        "Amara|Chidi|Chinedu|Ngozi|Oluwaseun|Tunde|Ade|Kwame|Kofi|Ama|Abena|Wanjiru|Zanele|Thabo|"
        "Sipho|Ayodele|Fatima|Aisha|Ahmed|Mohammed|Muhammad|Omar|Ali|Hassan|Hussein|Layla|Leila|"
        "Yasmin|Zainab|Khalid|Tariq|Samir|Karim|Rania|Nadia|Youssef|Amir|Reza|Dariush|Shirin|"
        "Mehmet|Emre|Elif|Ayşe|Yael|Noam|Avi|Tamar|Priya|Raj|Rahul|Ravi|Arjun|Anil|Sunil|Vikram|"
        "Amit|Ananya|Deepa|Divya|Kavya|Lakshmi|Meera|Neha|Pooja|Sanjay|Sneha|Vijay|Aditya|Rohan|"
        "Ishaan|Kiran|Nikhil|Shreya|Tanvi|Wei|Li|Ming|Jun|Hui|Yan|Xin|Lei|Jing|Chen|Hao|Yuki|"
        "Kenji|Hiroshi|Takeshi|Haruto|Sakura|Yui|Aiko|Akira|Kaito|Ren|Sora|Satoshi|Daisuke|"
        "Min-jun|Ji-woo|Seo-yeon|Hyun|Jae|Soo|Thanh|Minh|Linh|Anh|Nguyen|Siti|Putri|Budi|Jamal|"
        "Malik|Darnell|Keisha|Imani|Tyrone|Andre|DeShawn|Latoya|Raúl|Rosa|"
        # more English
        "Abigail|Adrienne|Aidan|Alberto|Alfred|Allison|Alyssa|Amber|Andrea|Angelica|Anita|"
        "Annabelle|April|Ariana|Audrey|Austin|Bailey|Becky|Bernard|Bethany|Bianca|Blake|Bradley|"
        "Brenda|Brett|Brianna|Bridget|Brittany|Brooke|Bryan|Caleb|Calvin|Cameron|Carla|Carlo|"
        "Carolina|Carrie|Casey|Cassandra|Cecilia|Chad|Cheryl|Chelsea|Cindy|Claudia|Clara|Clare|"
        "Cody|Connor|Corey|Courtney|Crystal|Curtis|Cynthia|Dale|Damian|Darren|Declan|Derek|"
        "Desmond|Dominic|Dustin|Edgar|Edith|Edwin|Eileen|Elaine|Eli|Elijah|Elise|Eliza|Ella|"
        "Eloise|Emmett|Erica|Erin|Esther|Eugene|Evelyn|Fiona|Florence|Frances|Francis|Gabriella|"
        "Gail|Gavin|Gemma|Georgia|Gerald|Gillian|Gina|Gloria|Gordon|Graham|Hailey|Harold|"
        "Harriet|Harrison|Hayley|Hazel|Heidi|Holly|Howard|Imogen|Irene|Iris|Isla|Ivy|Jacqueline|"
        "Jade|Jake|Jared|Jasmine|Jasper|Jay|Jean-Luc|Jenna|Jerome|Jesse|Jill|Joan|Joanna|Jocelyn|"
        "Joel|Jonah|Josephine|Joyce|Julian|Juliet|June|Kaitlyn|Karl|Katie|Kayla|Kelsey|Kendra|"
        "Kenneth|Kerry|Kirsten|Kristen|Lance|Leah|Leon|Leonard|Leslie|Lillian|Lily|Lindsay|"
        "Logan|Lois|Lorraine|Louise|Lucas|Lydia|Lynn|Madeline|Madison|Marcia|Marco|Marian|"
        "Marilyn|Marjorie|Martha|Marvin|Mason|Maureen|Maxwell|Melanie|Meredith|Miranda|Mitchell|"
        "Monica|Morgan|Nadine|Naomi|Neil|Nelson|Nina|Norman|Oscar|Paige|Patricia|Penelope|"
        "Phoebe|Priscilla|Quentin|Rebekah|Regina|Rhys|Riley|Robin|Roland|Ross|Roy|Ruby|Russell|"
        "Sabrina|Sally|Sebastian|Seth|Shane|Shannon|Shawn|Sheila|Shirley|Sienna|Spencer|Stella|"
        "Stuart|Sydney|Sylvia|Tamara|Tanya|Tara|Taylor|Teresa|Terry|Theo|Theodore|Tiffany|Toby|"
        "Travis|Trevor|Troy|Valerie|Vanessa|Vera|Veronica|Violet|Virginia|Wade|Warren|Wayne|"
        "Wesley|Whitney|Willow|Wyatt|Yvonne|Zachary|Zach|"
        # more European
        "Aleksandra|Aleksander|Alessia|Alina|Andreas|Andrzej|Anke|Antonio|Antonia|Arne|Axel|"
        "Bartosz|Bastian|Benedikt|Bernd|Birgit|Bjorn|Björn|Bogdan|Boris|Bruno|Carina|Claus|"
        "Cristina|Cristian|Dagmar|Dario|Darius|Denis|Dieter|Dimitri|Dimitris|Dominik|Dorota|Elias|"
        "Elisa|Elisabeth|Enrico|Enzo|Esra|Fabian|Fabio|Federico|Filip|Finn|Francesco|Franz|"
        "Frederik|Friedrich|Georg|Gerhard|Gianluca|Giorgio|Giuseppe|Greta|Gunnar|Gustav|Hanna|"
        "Hannes|Heinz|Helena|Helga|Hendrik|Ilse|Ilya|Irina|Jakob|Jakub|Jens|Joachim|Johan|"
        "Johanna|Johannes|Jonatan|Jorge|Jose|Josef|Julius|Jurgen|Kai|Karin|Karolina|Kasper|"
        "Katarina|Kristian|Kristina|Krzysztof|Lara|Leif|Lennart|Leonie|Lorenzo|Lotte|Louisa|"
        "Luc|Ludwig|Lukasz|Łukasz|Magdalena|Maja|Malte|Manuel|Marek|Marina|Marius|Marta|Martina|"
        "Matej|Matthias|Mattias|Maxime|Michal|Michał|Milan|Milena|Mirko|Moritz|Nadja|Nicolas|"
        "Nico|Nikola|Nikolai|Nikolaj|Oksana|Ola|Olaf|Olena|Oleg|Oliwia|Ondrej|Paolo|Patrik|"
        "Pawel|Paweł|Petra|Pietro|Radek|Ralf|Rasmus|Renata|Riccardo|Roberto|Rolf|Roman|Rune|"
        "Ruslan|Sandro|Sanne|Sascha|Sergio|Silvia|Simone|Sonja|Stanislav|Stefano|Stig|Susanne|"
        "Svetlana|Sylwia|Tereza|Thijs|Thierry|Thorsten|Tijs|Timo|Ulrich|Ursula|Uwe|Valentin|"
        "Vasily|Viktor|Viktoria|Vladimir|Wiebke|Wojciech|Xavier|Yannick|Yusuf|Zofia|Zoltan|"
        "Adrien|Alain|Amélie|Anaïs|Aurélie|Baptiste|Benoît|Bernadette|Céline|Clément|Corentin|"
        "Damien|Élise|Émilie|Étienne|Fabrice|François|Gaëlle|Guillaume|Hélène|Jacques|Jérôme|"
        "Laurent|Léon|Lucien|Manon|Margaux|Mathilde|Nathalie|Olivier|Pascal|Quentin|Rémi|"
        "Sébastien|Solène|Sylvain|Thibault|Valérie|Yves|"
        "Adriana|Alba|Alfonso|Álvaro|Andrés|Ángel|Beatriz|Catalina|Cristóbal|Eduardo|Elisa|"
        "Emilio|Esteban|Felipe|Gonzalo|Guadalupe|Hernán|Ignacio|Inés|Jaime|Jimena|Joaquín|"
        "Jorge|Julieta|Leonardo|Lorena|Lucas|Manuela|Marcela|Margarita|Mercedes|Natalia|Nicolás|"
        "Patricia|Ramón|Rocío|Rodrigo|Salvador|Sergio|Teresa|Tomás|Valeria|Ximena|Ximena|"
        "Afonso|Bruna|Caio|Duarte|Gonçalo|Inês|Leonor|Rui|Tiago|Vitor|"
        # African, Middle Eastern
        "Abdul|Abdullah|Adaeze|Adebayo|Adwoa|Akua|Amina|Aminata|Asha|Ayo|Babajide|Bisi|Chiamaka|"
        "Chioma|Chukwuemeka|Dayo|Efua|Emeka|Esi|Fatou|Folake|Funmi|Ifeoma|Ikechukwu|Kemi|Kojo|"
        "Lwazi|Mandla|Moussa|Mpho|Nkechi|Nnamdi|Obinna|Olumide|Ousmane|Sade|Segun|Tendai|Thandiwe|"
        "Themba|Uchenna|Wanjiku|Yaw|Yemi|Zodwa|"
        "Aaliyah|Abbas|Adel|Ahmad|Aziz|Bilal|Dalia|Dina|Farah|Farid|Faisal|Ghada|Habib|Hamid|"
        "Hamza|Hana|Hani|Hiba|Huda|Ibrahim|Idris|Ilyas|Imran|Ismail|Jalal|Jamila|Kamal|Khadija|"
        "Lina|Mahmoud|Majid|Mariam|Maryam|Mona|Mustafa|Nabil|Nasser|Nour|Rami|Rana|Rashid|Salim|"
        "Salma|Sami|Sara|Sultan|Walid|Yara|Yasmine|Younes|Zahra|Zaid|Zeynep|Ayla|Burak|Can|Cem|"
        "Deniz|Ece|Hakan|Kerem|Murat|Selin|Serkan|Tolga|Arash|Babak|Farhad|Leyla|Mahsa|Navid|"
        "Parisa|Sina|Ariel|Itai|Moshe|Ori|Shira|Tal|Yonatan|"
        # South Asian
        "Aarav|Abhishek|Ajay|Akash|Akshay|Anand|Anjali|Ankit|Anupam|Aparna|Arun|Aruna|Ashok|"
        "Bhavna|Chetan|Deepak|Dev|Dinesh|Gaurav|Geeta|Harsh|Harish|Hari|Isha|Jaya|Karan|Kavita|"
        "Krishna|Kunal|Lalit|Madhu|Mahesh|Manish|Manoj|Meena|Mohan|Nandini|Naveen|Nisha|Pallavi|"
        "Pankaj|Prakash|Pranav|Prasad|Preeti|Priyanka|Radha|Rajesh|Rakesh|Ramesh|Ranjit|Rashmi|"
        "Ritu|Rohit|Sachin|Sahil|Sandeep|Sangeeta|Sanjana|Santosh|Sarita|Shalini|Shankar|Sharmila|"
        "Shiva|Shruti|Siddharth|Smita|Sonia|Suresh|Swati|Tarun|Uma|Usha|Varun|Vidya|Vinay|Vinod|"
        "Vishal|Yash|Zara|Sunita|Anika|Kabir|Ayesha|Bushra|Fahad|Imtiaz|Nasir|Rizwan|Saima|"
        # East and South-East Asian
        "Bo|Chang|Fang|Feng|Guang|Hong|Hua|Jia|Jian|Jie|Jin|Juan|Kang|Lan|Lin|Ling|Mei|Na|"
        "Ning|Ping|Qiang|Qing|Rui|Shan|Shu|Tao|Ting|Wen|Xia|Xiao|Xu|Yang|Yi|Ying|Yong|Yu|Yuan|"
        "Yun|Zhen|Zhi|Zhong|Haruka|Hina|Hiro|Hiroko|Kazuki|Keiko|Ken|Kenta|Koji|Makoto|Mariko|"
        "Masato|Mayu|Megumi|Miki|Naoki|Naomi|Riku|Rin|Ryo|Ryota|Shota|Sho|Takumi|Taro|Tomoko|"
        "Yoko|Yusuke|Yuto|Ayumi|Emi|Eun|Hye|Ji-hoon|Jin-woo|Joon|Joon-ho|Kyung|Min|Min-ji|"
        "Seo-jun|Seung|Sung|Young|Yeon|Hoa|Huong|Lan|Mai|Nam|Phuong|Quan|Tuan|Trang|Dewi|Agus|"
        "Rizal|Wayan|Arief|Nurul|Aziz|Somchai|Kanya|Niran|Malee|"
        # Pacific, Indigenous, others
        "Aroha|Kiri|Mere|Tane|Wiremu|Leilani|Kai|Koa|Malia|Ivo|Ivana|Ivica|Goran|Dragan|Jelena|"
        "Milica|Nemanja|Zoran|Ana-Maria|Mihai|Ioana|Andreea|Radu|Elif"
    )
)

# Capitalised words for departments and roles that read like names: "ask Legal", "Ops".
GENERIC_CAPS = frozenset(
    _words(
        "legal|finance|hr|marketing|sales|security|support|ops|it|engineering|design|product|"
        "research|management|leadership|procurement|accounting|compliance|recruiting|admin|"
        "infra|platform|team|everyone|anyone|someone|nobody|mom|dad|todo|fyi|note|notes|"
        "update|reminder|agenda|summary|meeting|action|decision|decisions|question|questions|"
        "ok|okay|yes|thanks|hi|hello|maybe|also|next|done"
    )
)
# Titles before a person's name ("Dr. Lena Hartmann"); the title is not part of the name.
TITLES = frozenset(_words("dr|mr|mrs|ms|mx|prof|professor|sir|dame|dr.|mr.|mrs.|ms.|prof."))
# Lower-case particles inside names ("Guido van Rossum", "Ana de Souza").
NAME_PARTICLES = frozenset(_words("van|von|de|da|del|der|di|du|la|le|bin|al|ibn|dos|das|ter|ten"))

MONTHS_DAYS = frozenset(
    _words(
        "january|february|march|april|may|june|july|august|september|october|november|december|"
        "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|monday|tuesday|wednesday|thursday|"
        "friday|saturday|sunday|today|tomorrow|yesterday|christmas|easter"
    )
)

# Abbreviations whose full stop does not end a sentence.
ABBREVIATIONS = frozenset(_words("dr|mr|mrs|ms|mx|prof|st|vs|e.g|i.e|al|approx|no|fig|sr|jr"))

DETERMINERS = frozenset(
    _words(
        "the|a|an|our|their|his|her|its|my|your|this|that|these|those|some|any|each|every|"
        "another|several|both|all|new|old|first|original|latest|current|main|next|last|entire|"
        "whole|same|other"
    )
)
PRONOUNS = frozenset(_words("i|we|you|he|she|it|they|me|us|him|them|someone|everyone|nobody"))
PREPOSITIONS = frozenset(
    _words(
        "of|in|on|at|by|for|from|to|with|without|into|onto|over|under|about|after|before|during|"
        "through|via|across|against|between|among|around|behind|beyond|near|since|until|upon|"
        "within|per|like|than|as"
    )
)
CONJUNCTIONS = frozenset(
    _words(
        "and|or|but|nor|so|yet|because|although|though|while|whereas|if|unless|when|whether|"
        "once|then"
    )
)
AUXILIARIES = frozenset(
    _words(
        "is|are|was|were|be|been|being|am|has|have|had|do|does|did|will|would|shall|should|can|"
        "could|may|might|must|'s|’s|not|never"
    )
)
ADVERBS = frozenset(
    _words(
        "now|also|then|just|still|already|originally|recently|currently|mostly|heavily|really|"
        "actually|probably|finally|initially|later|soon|often|always|usually|again|quickly|"
        "officially|primarily|mainly|partly|largely|jointly|together|last|this|year|week|month|"
        "today|yesterday|daily|every|day"
    )
)
# Reporting verbs open a new clause: "Bob said the gateway needs Redis" (Bob needs nothing).
CLAUSE_OPENERS = frozenset(
    _words(
        "said|says|say|think|thinks|thought|believe|believes|believed|claims|claimed|argued|"
        "argues|noted|wondered|whether|because|although|though|while|whereas|however|but|"
        "if|unless|when|once|so"
    )
)
RELATIVE_PRONOUNS = frozenset({"who", "which", "whom", "whose"})

# Nouns for roles and groups: "a professor at MIT", "the mobile team at Vector Studio" say the
# clause's person belongs to the organisation after at/of/from.
ROLE_NOUNS = frozenset(
    _words(
        "team|group|lab|department|division|office|squad|unit|crew|startup|company|professor|"
        "engineer|researcher|scientist|designer|developer|manager|lead|director|head|student|"
        "intern|founder|cofounder|co-founder|ceo|cto|cfo|coo|vp|president|partner|member|fellow|"
        "postdoc|lecturer|analyst|consultant|architect|employee|contractor|advisor|chair|"
        "maintainer|contributor|staff|people|folks|colleague|colleagues|everyone|everybody|teams|"
        "engineers|researchers|developers|designers|scientists|students|employees|members"
    )
)
# Nouns that keep "of" inside an object gap: "requires a newer version of CMake", "disagrees
# with the conclusions of the X report".
PART_NOUNS = frozenset(
    _words(
        "version|versions|copy|instance|release|build|fork|port|lot|mix|part|parts|rest|most|some|"
        "all|one|half|conclusions|conclusion|findings|results|claims|claim|argument|arguments|"
        "analysis|numbers|data|section|chapter|sections|chapters|author|authors"
    )
)

# "the X migration", "the billing rewrite": the work noun is part of the project's name.
WORK_HEADS = frozenset(
    _words(
        "migration|rewrite|initiative|launch|upgrade|refactor|refactoring|redesign|rollout|"
        "overhaul|integration|pilot|prototype|revamp|port|effort|programme|program|project|release|"
        "rollout|deployment|experiment|campaign|hackathon"
    )
)
# "the Tidepool app", "the Atlas Sync library": dropped from the name, need a capitalised name.
PRODUCT_HEADS = frozenset(
    _words(
        "app|application|library|platform|service|engine|toolkit|framework|product|website|"
        "site|tool|package|module|api|dashboard"
    )
)
# "the Quill editor" is Quill; "the Pelican plugin" is something for Pelican. Either way the
# name before is a technology.
TECH_HEADS = frozenset(_words("editor|sdk|cli|client|runtime"))
ADDON_HEADS = frozenset(
    _words("plugin|plugins|extension|extensions|driver|drivers|bindings|wrapper")
)
# Heads dropped from a project's name ("the Ledger project" -> Ledger).
DROPPED_HEADS = PRODUCT_HEADS | {"project", "program", "programme"}
# "the Atlas report", "RFC 7519": documents need a capitalised name or a standard number.
DOCUMENT_HEADS = frozenset(
    _words(
        "report|memo|paper|spec|specification|doc|docs|document|proposal|guide|handbook|manual|"
        "whitepaper|readme|rfc|postmortem|post-mortem|writeup|write-up|brief|roadmap|playbook|"
        "runbook|policy|adr|prd|article|book|thesis|draft"
    )
)
STANDARD_PREFIXES = frozenset(_words("rfc|iso|iec|ieee|pep|rfd|adr|en|din|astm"))

# Concept cues: the noun phrase after them is the topic ("Discussed API design with Bob").
CONCEPT_CUES = _words(
    "discussed|discussing|discuss|discussion of|discussion on|discussion about|talked about|"
    "talk on|talk about|talks on|about|studies|studying|studied|research on|researching|"
    "learned about|learning about|learn about|reading about|notes on|thoughts on|brainstormed|"
    "presentation on|lecture on|workshop on|explored|exploring|focuses on|focused on"
)
# For "about", the topic must have two or more words ("about 12 KB" / "about an hour" are not).
WEAK_CONCEPT_CUES = frozenset({"about"})

# Cue words that type an unknown capitalised name right after them.
TYPING_CUES: dict[str, tuple[str, ...]] = {
    "technology": _words(
        "use|uses|using|used|built with|written in|write in|runs on|running on|run on|"
        "powered by|switched to|migrated to|adopted|depends on|requires|relies on|integrates with|"
        "runs|open-sourced|open sourced"
    ),
    "project": _words("works on|working on|worked on|contributes to|contributing to|lead on"),
    "organization": _words(
        "from|at|joined|joins|join|joining|works at|worked at|works for|worked for|member of|"
        "employed by|employed at|interned at|acquired"
    ),
    "person": _words(
        "with|met|met with|meeting with|by|ask|asked|told|thanks|thank|cc|ping|"
        "emailed|messaged|introduced|hired"
    ),
    "location": _words(
        "based in|lives in|living in|moved to|located in|headquartered in|office in|relocated to|"
        "flew to|travelled to|traveled to|visiting"
    ),
}


def _verb(forms: str, rel: str, inverted: bool = False) -> list[tuple[str, str, bool]]:
    return [(f, rel, inverted) for f in _words(forms)]


# Relationship cues: (phrase, type, inverted). Inverted cues are passives whose agent follows
# ("X was created by Y" is Y CREATED X; "X is blocked by Y" and "X is waiting on Y" are
# Y BLOCKS X). Longest phrase wins at a position.
RELATION_CUES: list[tuple[str, str, bool]] = [
    *_verb(
        "leads|lead|leading|led|heads|headed|heading|supervises|supervised|supervising|"
        "manages|managed|managing|works on|work on|working on|worked on|contributes to|"
        "contributed to|contributing to|lead on|lead for|lead of",
        "WORKS_ON",
    ),
    *_verb("led by|supervised by|managed by|headed by", "WORKS_ON", True),
    *_verb("hired|hires|hire|recruited|recruits|onboarded", "MEMBER_OF", True),
    *_verb(
        "joined|joins|join|joining|works at|work at|working at|worked at|works for|"
        "work for|working for|worked for|member of|members of|employed at|"
        "employed by|interned at|is part of|part of",
        "MEMBER_OF",
    ),
    *_verb(
        "uses|use|using|used|built with|build with|written in|write in|runs on|run on|"
        "running on|ran on|powered by|adopted|adopts|switched to|relies heavily on|"
        "integrates with",
        "USES",
    ),
    *_verb("used by", "USES", True),
    *_verb(
        "depends on|depend on|depending on|depended on|requires|require|required|"
        "requiring|needs|need|needed|relies on|rely on|relied on|built on|built on top of",
        "DEPENDS_ON",
    ),
    *_verb("required by|needed by", "DEPENDS_ON", True),
    *_verb(
        "owns|own|owned|maintains|maintain|maintained|maintaining|is responsible for|"
        "are responsible for|responsible for|acquired|acquires|acquire|bought",
        "OWNS",
    ),
    *_verb("owned by|maintained by|acquired by", "OWNS", True),
    *_verb(
        "created|creates|create|creating|founded|founds|co-founded|cofounded|wrote|writes|"
        "write|built|builds|build|designed|designs|developed|develops|invented|invents|"
        "authored|co-authored|coauthored|co-wrote|co-created|co-designed|started|launched|"
        "released|introduced|open-sourced|open sourced",
        "CREATED",
    ),
    *_verb(
        "created by|founded by|co-founded by|written by|built by|designed by|developed by|"
        "co-authored by|open-sourced by|"
        "invented by|authored by|started by|launched by|released by|introduced by",
        "CREATED",
        True,
    ),
    *_verb(
        "changed|changes|change|updated|updates|update|modified|modifies|modify|refactored|"
        "refactors|refactor|rewrote|rewrites|edited|edits|revised|revises|upgraded|tweaked|"
        "reworked|patched",
        "MODIFIED",
    ),
    *_verb(
        "changed by|updated by|modified by|refactored by|rewritten by|edited by|revised by|"
        "patched by",
        "MODIFIED",
        True,
    ),
    *_verb("blocks|block|blocking|blocked", "BLOCKS"),
    *_verb(
        "blocked by|blocked on|waiting on|waiting for|waits on|waits for|held up by|is blocked by",
        "BLOCKS",
        True,
    ),
    *_verb(
        "contradicts|contradict|contradicted|disagrees with|disagree with|disagreed with|"
        "conflicts with|conflict with|refutes|refuted|disputes|disputed",
        "CONTRADICTS",
    ),
    *_verb("contradicted by|refuted by", "CONTRADICTS", True),
    *_verb(
        "references|reference|referenced|referencing|cites|cite|cited|citing|mentions|"
        "mention|mentioned|links to|link to|refers to|refer to|see|quotes|quoted|"
        "builds on",
        "REFERENCES",
    ),
    *_verb("cited by|referenced by|mentioned by", "REFERENCES", True),
    *_verb(
        "met|meets|meet|met with|meeting with|meets with|talked to|talked with|spoke with|"
        "spoke to|paired with|pairs with|collaborates with|collaborated with|"
        "works with|worked with|working with|teamed up with",
        "RELATED_TO",
    ),
]
# Verbs that say the capitalised name before them is a person ("Helena Kowalski founded ...").
PERSON_VERBS = frozenset(
    _words(
        "said|says|thinks|thought|suggested|suggests|asked|asks|agreed|agrees|presented|reviewed|"
        "met|joined|joins|moved|wrote|mentioned|told|explained|proposed|argued|disagrees|disagreed|"
        "prefers|wants|wanted|likes|feels|felt|believes|noted|replied|promised|approved|"
        "volunteered|paired|pairs|founded|co-founded|co-authored|visited|emailed|called|"
        "recommended|complained|confirmed|decided|offered|shared|sent|laughed|smiled"
    )
)
# Cues after which a company's name is its product ("uses SAP", "switched to Slack").
STRONG_TECH_CUES = frozenset(
    _words("use|uses|using|used|switched to|migrated to|adopted|built with|runs on|running on")
)
# Cues after which a technology name is the company ("joined Figma", "works at Docker").
STRONG_ORG_CUES = frozenset(
    _words(
        "joined|joins|join|joining|works at|worked at|works for|worked for|employed by|employed at|"
        "interned at|member of"
    )
)
# Prepositions meaning membership when they join a person (or organisation) to an organisation.
MEMBERSHIP_PREPOSITIONS = frozenset({"from", "at", "of", "@", "("})
