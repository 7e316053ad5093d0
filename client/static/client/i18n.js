// German, English and French: the browser's language first, switchable, remembered.

export const LANGUAGES = ["de", "en", "fr"];
const KEY = "maumau.lang";

const en = {
  "nav.lobby": "Lobby", "nav.ratings": "Ratings", "nav.logout": "Log out",
  "auth.title": "Play Mau-Mau", "auth.guest": "Play as a guest", "auth.name": "Your name",
  "auth.guest.go": "Play as guest", "auth.signup": "Create an account", "auth.username": "Username",
  "auth.password": "Password", "auth.signup.go": "Sign up", "auth.login": "Log in",
  "auth.login.go": "Log in", "auth.device": "Web browser",
  "lobby.mine": "Your games", "lobby.none": "No games running.", "lobby.open": "Open tables",
  "lobby.noopen": "No open tables. Create one!", "lobby.create": "New table", "lobby.rules": "Rule set",
  "lobby.players": "Seats", "lobby.turn": "Time per turn", "lobby.create.go": "Create table",
  "lobby.join": "Join", "lobby.open_table": "Open", "lobby.yourturn": "Your turn", "lobby.waiting": "Waiting",
  "lobby.leagues": "Leagues", "lobby.quick": "Play now", "lobby.quick.go": "Play now",
  "lobby.quick.bots": "Bots fill empty seats after {s} s", "lobby.seeking": "Looking for players…",
  "lobby.cancel": "Cancel", "lobby.challenges": "Challenges", "lobby.challenge.to": "Username",
  "lobby.challenge.go": "Challenge", "lobby.accept": "Accept", "lobby.decline": "Decline",
  "lobby.from": "from", "lobby.to": "to", "lobby.spectate": "Watch", "lobby.running": "Rounds to watch",
  "rules.classic": "Classic", "rules.tavern": "Tavern", "rules.house": "House rules",
  "table.title": "Table {id}", "table.host": "host", "table.seats": "Seats", "table.bot.add": "Add bot",
  "table.bot.basic": "basic bot", "table.bot.random": "random bot", "table.start": "Start round",
  "table.next": "Next round", "table.leave": "Leave table", "table.join": "Take a seat",
  "table.game": "Go to the round", "table.free": "free seat", "table.scoreboard": "Scoreboard",
  "table.waiting": "Waiting for the host to start a round.", "table.chat": "Chat", "table.say": "Send",
  "score.player": "Player", "score.rounds": "Rounds", "score.wins": "Wins", "score.points": "Points",
  "score.practice": "{n} practice rounds (not counted)", "score.position": "#",
  "league.title": "League {name}", "league.lost": "out", "league.standings": "Standings",
  "ratings.title": "Ratings", "ratings.rating": "Rating", "ratings.provisional": "provisional",
  "ratings.people": "People only",
  "game.title": "Round {number} · table {table}", "game.practice": "practice", "game.stock": "Stock",
  "game.top": "Top card", "game.wish": "Wish", "game.pending": "Draw {n}!", "game.hand": "Your hand",
  "game.turn.you": "Your turn", "game.turn.other": "{name}'s turn", "game.deadline": "{s} left",
  "game.draw": "Draw", "game.pass": "Pass", "game.resign": "Resign", "game.moves": "Last moves",
  "game.cards": "{n} cards", "game.card": "1 card", "game.bot": "bot", "game.online": "online",
  "game.offline": "away", "game.unplayable": "cannot be played now", "game.choose": "How do you play {card}?",
  "game.choose.wish": "Wish a suit", "game.choose.target": "Swap hands with", "game.choose.as": "The joker stands for",
  "game.choose.with": "together with", "game.cancel": "Cancel", "game.play": "Play",
  "game.calls": "Calls", "game.over": "Round over", "game.winner": "{name} wins", "game.nowinner": "No winner",
  "game.rank": "Rank", "game.left": "Cards left", "game.stream.lost": "Connection lost, reconnecting…",
  "game.stream.open": "Live", "game.drawn": "You drew {card}", "game.direction": "Direction",
  "game.spectator": "You are watching", "game.back": "Back to the table", "game.owes": "owes a call",
  "game.hermann": "Hermann race!", "game.lobby": "Lobby",
  "word.mau": "Mau", "word.maumau": "Mau-Mau", "word.pik": "Pik", "word.hermann": "Hermann",
  "suit.C": "clubs", "suit.S": "spades", "suit.H": "hearts", "suit.D": "diamonds",
  "rank.J": "Jack", "rank.Q": "Queen", "rank.K": "King", "rank.A": "Ace", "short.J": "J", "short.Q": "Q",
  "short.K": "K", "short.A": "A", "joker": "Joker", "card": "{rank} of {suit}", "joker.as": "Joker as {card}",
  "ev.dealt": "Cards dealt, {card} turned up", "ev.played": "{name} plays {cards}",
  "ev.drew": "{name} draws {n} cards", "ev.drew.one": "{name} draws a card", "ev.drew.cards": "{name} draws {cards}", "ev.passed": "{name} passes",
  "ev.said": "{name} says “{word}!”", "ev.mau": "{name} has one card left",
  "ev.penalty_grew": "{name} raises the draw to {n}", "ev.wish": "{name} wishes {suit}",
  "ev.hands_swapped": "{a} and {b} swap hands", "ev.hermann_started": "Hermann! Everyone call it",
  "ev.hermann_closed": "Hermann race over", "ev.direction": "The direction turns", "ev.skipped": "{name} is skipped",
  "ev.reshuffled": "The pile is shuffled into the stock", "ev.timeout": "{name} ran out of time",
  "ev.round_over": "Round over", "ev.resigned": "{name} resigns", "ev.aborted": "The round is called off", "ev.refused": "{name} tried a false play",
  "reason.seven": "penalty", "reason.forgot_mau": "forgot “Mau”", "reason.forgot_maumau": "forgot “Mau-Mau”",
  "reason.forgot_pik": "forgot “Pik”", "reason.hermann": "Hermann", "reason.illegal": "false play",
  "reason.timeout": "too slow", "reason.jack_last": "a jack may not win",
  "error.offline": "The server cannot be reached.",
  "clock.20s": "20 s a turn", "clock.1m": "1 min a turn", "clock.1d": "1 day a turn",
  "clock.none": "No clock", "game.anticlockwise": "anticlockwise", "game.clockwise": "clockwise",
  "game.choose.suit": "Suit", "game.choose.tap": "Tap the player to swap hands with", "game.multiplier": "Jack multiplier ×{n}",
  "game.place": "You placed {place} of {n}", "game.sound.off": "Sound off", "game.sound.on": "Sound on",
  "game.times": "Multiplier", "history.none": "No finished rounds yet.", "history.rank": "place {n}",
  "history.round": "round {n}", "league.create": "New league", "league.create.go": "Create league",
  "league.empty": "No rounds yet.", "league.finished": "finished", "league.invite": "Invitation link",
  "league.invite.help": "Send this link to the players of your league.", "league.loser": "{name} lost the league", "league.mine": "Your leagues",
  "league.name": "Name", "league.none": "No leagues.", "league.open": "Open",
  "league.public": "Other leagues", "league.race": "The race", "league.race.limit": "limit {n}",
  "league.race.rounds": "{n} rounds", "league.race.title": "Points per player over {n} rounds", "league.rounds": "Finished rounds",
  "league.table": "Open a league table", "lobby.bots.soon": "bots after {s} s", "lobby.challenge.link": "Invite by link",
  "lobby.challenge.linkhelp": "a table of two, with a link to send", "lobby.clock": "Time per turn", "lobby.players.n": "{n} players",
  "nav.history": "History", "nav.leagues": "Leagues", "replay.first": "First move",
  "replay.last": "Last move", "replay.next": "Next move", "replay.open": "Replay",
  "replay.prev": "Previous move", "replay.running": "The round is still running: hands are shown once it is over.", "replay.slider": "Move",
  "replay.step": "Move {n} of {total}", "replay.title": "Replay: {id}", "table.clock": "Clock: {s} a turn",
  "table.copied": "Link copied", "table.copy": "Copy", "table.free.n": "{n} free",
  "table.invite": "Invitation link", "table.invite.help": "Whoever opens this link can take a seat.", "table.rounds": "Finished rounds",
  "unit.day": "d", "unit.hour": "h", "place.1": "1st",
  "place.2": "2nd", "place.3": "3rd", "place.4": "4th",
  "place.5": "5th", "place.6": "6th", "place.7": "7th",
  "place.8": "8th", "place.9": "9th",
};

const de = {
  "nav.lobby": "Lobby", "nav.ratings": "Wertungen", "nav.logout": "Abmelden",
  "auth.title": "Mau-Mau spielen", "auth.guest": "Als Gast spielen", "auth.name": "Dein Name",
  "auth.guest.go": "Als Gast spielen", "auth.signup": "Konto anlegen", "auth.username": "Benutzername",
  "auth.password": "Passwort", "auth.signup.go": "Registrieren", "auth.login": "Anmelden",
  "auth.login.go": "Anmelden", "auth.device": "Webbrowser",
  "lobby.mine": "Deine Spiele", "lobby.none": "Keine laufenden Spiele.", "lobby.open": "Offene Tische",
  "lobby.noopen": "Keine offenen Tische. Eröffne einen!", "lobby.create": "Neuer Tisch", "lobby.rules": "Regeln",
  "lobby.players": "Plätze", "lobby.turn": "Zeit pro Zug", "lobby.create.go": "Tisch eröffnen",
  "lobby.join": "Beitreten", "lobby.open_table": "Öffnen", "lobby.yourturn": "Du bist dran", "lobby.waiting": "Warten",
  "lobby.leagues": "Ligen", "lobby.quick": "Jetzt spielen", "lobby.quick.go": "Jetzt spielen",
  "lobby.quick.bots": "Bots füllen leere Plätze nach {s} s", "lobby.seeking": "Suche Mitspieler…",
  "lobby.cancel": "Abbrechen", "lobby.challenges": "Herausforderungen", "lobby.challenge.to": "Benutzername",
  "lobby.challenge.go": "Herausfordern", "lobby.accept": "Annehmen", "lobby.decline": "Ablehnen",
  "lobby.from": "von", "lobby.to": "an", "lobby.spectate": "Zuschauen", "lobby.running": "Laufende Runden",
  "rules.classic": "Klassisch", "rules.tavern": "Kneipe", "rules.house": "Hausregeln",
  "table.title": "Tisch {id}", "table.host": "Gastgeber", "table.seats": "Plätze", "table.bot.add": "Bot dazusetzen",
  "table.bot.basic": "einfacher Bot", "table.bot.random": "Zufallsbot", "table.start": "Runde starten",
  "table.next": "Nochmal!", "table.leave": "Tisch verlassen", "table.join": "Platz nehmen",
  "table.game": "Zur Runde", "table.free": "freier Platz", "table.scoreboard": "Punktestand",
  "table.waiting": "Warte, bis der Gastgeber eine Runde startet.", "table.chat": "Chat", "table.say": "Senden",
  "score.player": "Spieler", "score.rounds": "Runden", "score.wins": "Siege", "score.points": "Punkte",
  "score.practice": "{n} Übungsrunden (nicht gezählt)", "score.position": "Platz",
  "league.title": "Liga {name}", "league.lost": "raus", "league.standings": "Tabelle",
  "ratings.title": "Wertungen", "ratings.rating": "Wertung", "ratings.provisional": "vorläufig",
  "ratings.people": "Nur Menschen",
  "game.title": "Runde {number} · Tisch {table}", "game.practice": "Übung", "game.stock": "Stapel",
  "game.top": "Oberste Karte", "game.wish": "Wunsch", "game.pending": "{n} ziehen!", "game.hand": "Deine Karten",
  "game.turn.you": "Du bist dran", "game.turn.other": "{name} ist dran", "game.deadline": "noch {s}",
  "game.draw": "Ziehen", "game.pass": "Passen", "game.resign": "Aufgeben", "game.moves": "Letzte Züge",
  "game.cards": "{n} Karten", "game.card": "1 Karte", "game.bot": "Bot", "game.online": "online",
  "game.offline": "weg", "game.unplayable": "passt gerade nicht", "game.choose": "Wie spielst du {card}?",
  "game.choose.wish": "Farbe wünschen", "game.choose.target": "Karten tauschen mit", "game.choose.as": "Der Joker ist",
  "game.choose.with": "zusammen mit", "game.cancel": "Abbrechen", "game.play": "Spielen",
  "game.calls": "Ansagen", "game.over": "Runde vorbei", "game.winner": "{name} gewinnt", "game.nowinner": "Kein Gewinner",
  "game.rank": "Platz", "game.left": "Karten übrig", "game.stream.lost": "Verbindung weg, verbinde neu…",
  "game.stream.open": "Live", "game.drawn": "Gezogen: {card}", "game.direction": "Richtung",
  "game.spectator": "Du schaust zu", "game.back": "Zurück zum Tisch", "game.owes": "schuldet eine Ansage",
  "game.hermann": "Hermann-Rennen!", "game.lobby": "Lobby",
  "word.mau": "Mau", "word.maumau": "Mau-Mau", "word.pik": "Pik", "word.hermann": "Hermann",
  "suit.C": "Kreuz", "suit.S": "Pik", "suit.H": "Herz", "suit.D": "Karo",
  "rank.J": "Bube", "rank.Q": "Dame", "rank.K": "König", "rank.A": "Ass", "short.J": "B", "short.Q": "D",
  "short.K": "K", "short.A": "A", "joker": "Joker", "card": "{suit} {rank}", "joker.as": "Joker als {card}",
  "ev.dealt": "Karten verteilt, {card} aufgedeckt", "ev.played": "{name} legt {cards}",
  "ev.drew": "{name} zieht {n} Karten", "ev.drew.one": "{name} zieht eine Karte", "ev.drew.cards": "{name} zieht {cards}", "ev.passed": "{name} passt",
  "ev.said": "{name} sagt „{word}!“", "ev.mau": "{name} hat noch eine Karte",
  "ev.penalty_grew": "{name} erhöht auf {n} zu ziehen", "ev.wish": "{name} wünscht sich {suit}",
  "ev.hands_swapped": "{a} und {b} tauschen die Karten", "ev.hermann_started": "Hermann! Alle müssen es sagen",
  "ev.hermann_closed": "Hermann-Rennen vorbei", "ev.direction": "Die Richtung dreht sich", "ev.skipped": "{name} setzt aus",
  "ev.reshuffled": "Der Ablagestapel wird neu gemischt", "ev.timeout": "{name} war zu langsam",
  "ev.round_over": "Runde vorbei", "ev.resigned": "{name} gibt auf", "ev.aborted": "Die Runde wird abgebrochen", "ev.refused": "{name} hat falsch gelegt",
  "reason.seven": "Strafe", "reason.forgot_mau": "„Mau“ vergessen", "reason.forgot_maumau": "„Mau-Mau“ vergessen",
  "reason.forgot_pik": "„Pik“ vergessen", "reason.hermann": "Hermann", "reason.illegal": "falsch gelegt",
  "reason.timeout": "zu langsam", "reason.jack_last": "ein Bube gewinnt nicht",
  "error.offline": "Der Server ist nicht erreichbar.",
  "clock.20s": "20 s pro Zug", "clock.1m": "1 min pro Zug", "clock.1d": "1 Tag pro Zug",
  "clock.none": "Ohne Uhr", "game.anticlockwise": "gegen den Uhrzeigersinn", "game.clockwise": "im Uhrzeigersinn",
  "game.choose.suit": "Farbe", "game.choose.tap": "Tippe den Spieler an, mit dem du die Hand tauschst", "game.multiplier": "Buben-Multiplikator ×{n}",
  "game.place": "Du bist {place} von {n}", "game.sound.off": "Ton aus", "game.sound.on": "Ton an",
  "game.times": "Multiplikator", "history.none": "Noch keine beendeten Runden.", "history.rank": "Platz {n}",
  "history.round": "Runde {n}", "league.create": "Neue Liga", "league.create.go": "Liga anlegen",
  "league.empty": "Noch keine Runden.", "league.finished": "beendet", "league.invite": "Einladungslink",
  "league.invite.help": "Schick diesen Link an die Spieler deiner Liga.", "league.loser": "{name} hat die Liga verloren", "league.mine": "Deine Ligen",
  "league.name": "Name", "league.none": "Keine Ligen.", "league.open": "Öffnen",
  "league.public": "Andere Ligen", "league.race": "Das Rennen", "league.race.limit": "Grenze {n}",
  "league.race.rounds": "{n} Runden", "league.race.title": "Punkte je Spieler über {n} Runden", "league.rounds": "Beendete Runden",
  "league.table": "Ligatisch eröffnen", "lobby.bots.soon": "Bots nach {s} s", "lobby.challenge.link": "Per Link einladen",
  "lobby.challenge.linkhelp": "ein Tisch für zwei, mit einem Link zum Verschicken", "lobby.clock": "Zeit pro Zug", "lobby.players.n": "{n} Spieler",
  "nav.history": "Verlauf", "nav.leagues": "Ligen", "replay.first": "Erster Zug",
  "replay.last": "Letzter Zug", "replay.next": "Nächster Zug", "replay.open": "Wiederholung",
  "replay.prev": "Vorheriger Zug", "replay.running": "Die Runde läuft noch: die Hände zeigt sie erst danach.", "replay.slider": "Zug",
  "replay.step": "Zug {n} von {total}", "replay.title": "Wiederholung: {id}", "table.clock": "Uhr: {s} pro Zug",
  "table.copied": "Link kopiert", "table.copy": "Kopieren", "table.free.n": "{n} frei",
  "table.invite": "Einladungslink", "table.invite.help": "Wer diesen Link öffnet, kann Platz nehmen.", "table.rounds": "Beendete Runden",
  "unit.day": "T", "unit.hour": "h", "place.1": "Erster",
  "place.2": "Zweiter", "place.3": "Dritter", "place.4": "Vierter",
  "place.5": "Fünfter", "place.6": "Sechster", "place.7": "Siebter",
  "place.8": "Achter", "place.9": "Neunter",
};

const fr = {
  "nav.lobby": "Salon", "nav.ratings": "Classements", "nav.logout": "Se déconnecter",
  "auth.title": "Jouer au Mau-Mau", "auth.guest": "Jouer en invité", "auth.name": "Ton nom",
  "auth.guest.go": "Jouer en invité", "auth.signup": "Créer un compte", "auth.username": "Nom d’utilisateur",
  "auth.password": "Mot de passe", "auth.signup.go": "S’inscrire", "auth.login": "Se connecter",
  "auth.login.go": "Se connecter", "auth.device": "Navigateur web",
  "lobby.mine": "Tes parties", "lobby.none": "Aucune partie en cours.", "lobby.open": "Tables ouvertes",
  "lobby.noopen": "Aucune table ouverte. Crées-en une !", "lobby.create": "Nouvelle table", "lobby.rules": "Règles",
  "lobby.players": "Places", "lobby.turn": "Temps par tour", "lobby.create.go": "Créer la table",
  "lobby.join": "Rejoindre", "lobby.open_table": "Ouvrir", "lobby.yourturn": "À toi", "lobby.waiting": "En attente",
  "lobby.leagues": "Ligues", "lobby.quick": "Jouer maintenant", "lobby.quick.go": "Jouer",
  "lobby.quick.bots": "Des bots prennent les places libres après {s} s", "lobby.seeking": "Recherche de joueurs…",
  "lobby.cancel": "Annuler", "lobby.challenges": "Défis", "lobby.challenge.to": "Nom d’utilisateur",
  "lobby.challenge.go": "Défier", "lobby.accept": "Accepter", "lobby.decline": "Refuser",
  "lobby.from": "de", "lobby.to": "à", "lobby.spectate": "Regarder", "lobby.running": "Manches à regarder",
  "rules.classic": "Classique", "rules.tavern": "Bistrot", "rules.house": "Règles maison",
  "table.title": "Table {id}", "table.host": "hôte", "table.seats": "Places", "table.bot.add": "Ajouter un bot",
  "table.bot.basic": "bot simple", "table.bot.random": "bot au hasard", "table.start": "Lancer la manche",
  "table.next": "Encore une !", "table.leave": "Quitter la table", "table.join": "Prendre place",
  "table.game": "Aller à la manche", "table.free": "place libre", "table.scoreboard": "Tableau des scores",
  "table.waiting": "En attente du lancement par l’hôte.", "table.chat": "Discussion", "table.say": "Envoyer",
  "score.player": "Joueur", "score.rounds": "Manches", "score.wins": "Victoires", "score.points": "Points",
  "score.practice": "{n} manches d’entraînement (non comptées)", "score.position": "Rang",
  "league.title": "Ligue {name}", "league.lost": "éliminé", "league.standings": "Classement",
  "ratings.title": "Classements", "ratings.rating": "Cote", "ratings.provisional": "provisoire",
  "ratings.people": "Humains seulement",
  "game.title": "Manche {number} · table {table}", "game.practice": "entraînement", "game.stock": "Pioche",
  "game.top": "Carte du dessus", "game.wish": "Couleur demandée", "game.pending": "Piocher {n} !", "game.hand": "Ta main",
  "game.turn.you": "À toi de jouer", "game.turn.other": "Au tour de {name}", "game.deadline": "encore {s}",
  "game.draw": "Piocher", "game.pass": "Passer", "game.resign": "Abandonner", "game.moves": "Derniers coups",
  "game.cards": "{n} cartes", "game.card": "1 carte", "game.bot": "bot", "game.online": "en ligne",
  "game.offline": "absent", "game.unplayable": "injouable pour l’instant", "game.choose": "Comment jouer {card} ?",
  "game.choose.wish": "Demander une couleur", "game.choose.target": "Échanger les mains avec", "game.choose.as": "Le joker vaut",
  "game.choose.with": "avec", "game.cancel": "Annuler", "game.play": "Jouer",
  "game.calls": "Annonces", "game.over": "Manche terminée", "game.winner": "{name} gagne", "game.nowinner": "Pas de gagnant",
  "game.rank": "Rang", "game.left": "Cartes restantes", "game.stream.lost": "Connexion perdue, reconnexion…",
  "game.stream.open": "En direct", "game.drawn": "Tu as pioché {card}", "game.direction": "Sens",
  "game.spectator": "Tu regardes", "game.back": "Retour à la table", "game.owes": "doit une annonce",
  "game.hermann": "Course au Hermann !", "game.lobby": "Salon",
  "word.mau": "Mau", "word.maumau": "Mau-Mau", "word.pik": "Pik", "word.hermann": "Hermann",
  "suit.C": "trèfle", "suit.S": "pique", "suit.H": "cœur", "suit.D": "carreau",
  "rank.J": "Valet", "rank.Q": "Dame", "rank.K": "Roi", "rank.A": "As", "short.J": "V", "short.Q": "D",
  "short.K": "R", "short.A": "A", "joker": "Joker", "card": "{rank} de {suit}", "joker.as": "Joker comme {card}",
  "ev.dealt": "Cartes distribuées, {card} retourné", "ev.played": "{name} joue {cards}",
  "ev.drew": "{name} pioche {n} cartes", "ev.drew.one": "{name} pioche une carte", "ev.drew.cards": "{name} pioche {cards}", "ev.passed": "{name} passe",
  "ev.said": "{name} dit « {word} ! »", "ev.mau": "{name} n’a plus qu’une carte",
  "ev.penalty_grew": "{name} porte la pioche à {n}", "ev.wish": "{name} demande {suit}",
  "ev.hands_swapped": "{a} et {b} échangent leurs mains", "ev.hermann_started": "Hermann ! Tout le monde doit le dire",
  "ev.hermann_closed": "Fin de la course au Hermann", "ev.direction": "Le sens change", "ev.skipped": "{name} passe son tour",
  "ev.reshuffled": "La défausse est mélangée dans la pioche", "ev.timeout": "{name} a manqué de temps",
  "ev.round_over": "Manche terminée", "ev.resigned": "{name} abandonne", "ev.aborted": "La manche est annulée", "ev.refused": "{name} a joué une carte interdite",
  "reason.seven": "pénalité", "reason.forgot_mau": "« Mau » oublié", "reason.forgot_maumau": "« Mau-Mau » oublié",
  "reason.forgot_pik": "« Pik » oublié", "reason.hermann": "Hermann", "reason.illegal": "coup interdit",
  "reason.timeout": "trop lent", "reason.jack_last": "un valet ne gagne pas",
  "error.offline": "Le serveur est injoignable.",
  "clock.20s": "20 s par tour", "clock.1m": "1 min par tour", "clock.1d": "1 jour par tour",
  "clock.none": "Sans pendule", "game.anticlockwise": "sens inverse des aiguilles", "game.clockwise": "sens des aiguilles",
  "game.choose.suit": "Couleur", "game.choose.tap": "Touche le joueur avec qui échanger les mains", "game.multiplier": "Multiplicateur des valets ×{n}",
  "game.place": "Tu finis {place} sur {n}", "game.sound.off": "Son coupé", "game.sound.on": "Son activé",
  "game.times": "Multiplicateur", "history.none": "Aucune manche terminée.", "history.rank": "place {n}",
  "history.round": "manche {n}", "league.create": "Nouvelle ligue", "league.create.go": "Créer la ligue",
  "league.empty": "Aucune manche pour l’instant.", "league.finished": "terminée", "league.invite": "Lien d’invitation",
  "league.invite.help": "Envoie ce lien aux joueurs de ta ligue.", "league.loser": "{name} a perdu la ligue", "league.mine": "Tes ligues",
  "league.name": "Nom", "league.none": "Aucune ligue.", "league.open": "Ouvrir",
  "league.public": "Autres ligues", "league.race": "La course", "league.race.limit": "limite {n}",
  "league.race.rounds": "{n} manches", "league.race.title": "Points par joueur sur {n} manches", "league.rounds": "Manches terminées",
  "league.table": "Ouvrir une table de ligue", "lobby.bots.soon": "bots après {s} s", "lobby.challenge.link": "Inviter par lien",
  "lobby.challenge.linkhelp": "une table pour deux, avec un lien à envoyer", "lobby.clock": "Temps par tour", "lobby.players.n": "{n} joueurs",
  "nav.history": "Historique", "nav.leagues": "Ligues", "replay.first": "Premier coup",
  "replay.last": "Dernier coup", "replay.next": "Coup suivant", "replay.open": "Revoir",
  "replay.prev": "Coup précédent", "replay.running": "La manche continue : les mains sont montrées à la fin.", "replay.slider": "Coup",
  "replay.step": "Coup {n} sur {total}", "replay.title": "Revoir : {id}", "table.clock": "Pendule : {s} par tour",
  "table.copied": "Lien copié", "table.copy": "Copier", "table.free.n": "{n} libre(s)",
  "table.invite": "Lien d’invitation", "table.invite.help": "Qui ouvre ce lien peut prendre place.", "table.rounds": "Manches terminées",
  "unit.day": "j", "unit.hour": "h", "place.1": "1er",
  "place.2": "2e", "place.3": "3e", "place.4": "4e",
  "place.5": "5e", "place.6": "6e", "place.7": "7e",
  "place.8": "8e", "place.9": "9e",
};

const TABLES = { de, en, fr };

function preferred() {
  const stored = localStorage.getItem(KEY);
  if (LANGUAGES.includes(stored)) return stored;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).slice(0, 2).toLowerCase();
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

let current = preferred();

export function lang() { return current; }
export function setLang(value) {
  if (!LANGUAGES.includes(value)) return;
  current = value;
  localStorage.setItem(KEY, value);
  document.documentElement.lang = value;
}

export function t(key, params = {}) {
  const text = TABLES[current][key] ?? en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
}

const SUIT_SIGNS = { C: "♣", S: "♠", H: "♥", D: "♦" };
export const suitSign = (suit) => SUIT_SIGNS[suit] || suit;
export const suitName = (suit) => t(`suit.${suit}`);

export function cardParts(code) {
  if (code.startsWith("X")) return { joker: true, rank: "★", suit: null };
  return { joker: false, rank: code.slice(0, -1), suit: code.slice(-1) };
}

export function rankShort(rank) { return /^[JQKA]$/.test(rank) ? t(`short.${rank}`) : rank; }

export function cardName(code, as = null) {
  const { joker, rank, suit } = cardParts(code);
  if (joker) return as ? t("joker.as", { card: cardName(as) }) : t("joker");
  const rankText = /^[JQKA]$/.test(rank) ? t(`rank.${rank}`) : rank;
  return t("card", { rank: rankText, suit: suitName(suit) });
}
