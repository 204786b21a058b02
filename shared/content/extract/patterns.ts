/**
 * The general boilerplate vocabulary of the main-content extractor: words that page authors use in
 * class names, ids and roles for page furniture, across sites and frameworks. None names a site.
 * Most come from Mozilla Readability 0.6 (Apache-2.0) and trafilatura 2.2 (Apache-2.0), which
 * collected them over years of real pages.
 */

/** Elements whose class/id says "not the article" (removed before scoring, unless {@link MAYBE_CANDIDATE} also matches). */
export const UNLIKELY_CANDIDATE =
  /-ad-|ai2html|banner|breadcrumb|combx|comment(?!ary)|kommentare|komentarze|community|cover-wrap|disqus|extra|footer|gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote|cookie|consent|newsletter|subscri|share|sharing|teaser-list|recommend|taboola|outbrain|paywall|login|signup/i;

/** Words that keep an element otherwise matching {@link UNLIKELY_CANDIDATE} ("article-header", "main-menu-content"). */
export const MAYBE_CANDIDATE = /and|article|body|column|content|main|mathjax|shadow/i;

/**
 * The header of a recipe or a product rather than of the site: it holds the dish's or the
 * product's description and facts (servings, times, origin), which are the page's content
 * ("recipe-header", "productHeader"). Article headers are left to the lead rule (title-and-lead.ts),
 * which takes their lead and not their kicker, byline and date.
 */
export const CONTENT_HEADER = /(?:recipe|product)[-_]*header/i;

/** Furniture words that {@link MAYBE_CANDIDATE} does not rescue ("comments-content", "share-body"). */
export const ALWAYS_UNLIKELY = /comment(?!ary)|kommentare|komentarze|disqus|replies|share|sharing|social|related|recommend|cookie|consent|newsletter|taboola|outbrain/i;

/** Roles of page furniture (WAI-ARIA landmark and widget roles). */
export const UNLIKELY_ROLES: ReadonlySet<string> = new Set(["menu", "menubar", "complementary", "navigation", "alert", "alertdialog", "dialog", "banner", "contentinfo", "search"]);

/** Class/id words of article bodies: raise an element's weight by 25. */
export const POSITIVE = /article|body|content|entry|hentry|h-entry|main|page|post|text|blog|story|beitrag|artikel|inhalt/i;

/** Class/id words of page furniture: lower an element's weight by 25. */
export const NEGATIVE =
  /-ad-|hidden|^hid$| hid$| hid |^hid |banner|combx|comment(?!ary)|kommentare|komentarze|com-|contact|footer|gdpr|masthead|media|meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|tagcloud|widget|byline|author|dateline|credit|caption|breadcrumb|social|newsletter|teaser|recommend|more-|read-more|also|popular|trending|pagination/i;

/**
 * Text of a heading that introduces link lists rather than article text ("Related articles", "More from"),
 * and the labels of a blog's links to the posts before and after this one ("Next post:", "Vorgängerbeitrag:").
 */
export const LINK_LIST_HEADING =
  /^(?:related|more (?:from|on|in|stories|articles|news)|read (?:more|also|next)|up next|next up|watch next|what to read next|see also|you (?:may|might) (?:also )?like|recommended|popular|trending|most (?:read|popular|viewed)|latest|tags?|share|follow us|auch interessant|das könnte sie auch interessieren|mehr (?:zum thema|zu|aus|von)|weitere (?:artikel|beiträge|themen|nachrichten|informationen)|verwandte|ähnliche|beliebte|meistgelesen|teilen|schlagwörter|themen|lesen sie auch|à lire aussi|lire aussi|sur le même sujet|(?:articles?|audios?|vidéos?|audios? et vidéos?|dossiers?) sur le (?:même )?sujet|vorschau auf (?:den|die|das) nächsten? (?:artikel|beitrag|folge)|articles? similaires?|partager|leer más|te puede interesar|noticias relacionadas|compartir|zobacz (?:też|także|również)|czytaj (?:też|także|również)|podobne|przeczytaj (?:też|także|również)|lust auf mehr|schon gelesen|das könnte (?:dich|sie) (?:auch )?interessieren|empfohlene (?:beiträge|artikel)|weiterführende (?:links|artikel|beiträge)|zum weiterlesen|weiterlesen|mehr themen|letzte (?:artikel|beiträge|nachrichten)|neueste (?:artikel|beiträge)|top[- ]artikel|les plus lus|articles? les plus lus|à découvrir|le puede interesar|también te puede interesar|temas relacionados|lee también|ver también|leggi anche|potrebbe interessarti|articoli correlati|you may have missed|puedes ver|te recomendamos|mira también|lea también|también lea|voir aussi|à voir aussi|lire également|das thema könnte (?:dich|sie) auch interessieren|dieses thema könnte (?:dich|sie) auch interessieren|siehe auch|(?:artikel|videos|artikel und videos|bilder und videos) zum thema|dowiedz się (?:więcej|też)|(?:previous|next|older|newer) (?:post|article|story|entry)|nachfolgebeitrag|vorgängerbeitrag|(?:vorheriger|nächster|voriger) (?:beitrag|artikel)|article (?:précédent|suivant)|(?:entrada|artículo) (?:anterior|siguiente)|siguiente (?:entrada|artículo)|articolo (?:precedente|successivo)|(?:poprzedni|następny) (?:wpis|artykuł))(?![a-z0-9\u00c0-\u024f])/i;

/**
 * A media or topic label before a link on a line of its own ("WATCH: <link>", "Listen: <link>",
 * "Topics: <links>"): another page's teaser or the story's tags. Only before a link: a heading
 * "Video: how the bridge fell" titles the article's own section.
 */
export const MEDIA_LINK_LABEL = /^(?:watch|listen|video|videos|photos|pictures|gallery|podcast|topics?)\s*:/i;

/**
 * Text of a heading that opens a comment area ("3 Comments", "Kommentare (12)", "Leave a Reply",
 * "12 Antworten"): the area's own title, whatever its markup's class names say. Words that also
 * title article sections count only with a number ("Response" in API documentation, "Comment"
 * and "Kommentar" for opinion pieces, "Replies"); a bare "Discussion" never (research articles).
 */
export const COMMENT_HEADING =
  /^(?:(?:\d+|one|ein(?:en?)?)\s+)?(?:(?:reader|user)\s+)?(?:comments|kommentare|leserkommentare|commentaires|comentarios|commenti|komentarze|komentarzy)(?:\s*\(\d+\)|\s+\d+)?(?:\s+(?:to|on|zu|zum|sur|a|de)\b.{0,80})?\s*:?$|^(?:\d+|one|ein(?:en?)?)\s+(?:comment|responses?|replies|reactions|kommentar|antworten|antwort|commentaire|comentario|commento|komentarz)(?:\s+(?:to|on|zu|zum|sur|a|de)\b.{0,80})?\s*:?$|^(?:comments?|responses?|replies|kommentare?|antworten)\s*\(\d+\)\s*:?$|^(?:leave|post|add|write)\s+a\s+(?:reply|comment|response)\b|^(?:schreibe|schreiben sie)\s+einen\s+kommentar\b|^(?:kommentar|kommentieren)\s+(?:schreiben|verfassen|hinterlassen)\b|^(?:laisser|ajouter)\s+un\s+commentaire\b|^(?:deja|dejar|escribe)\s+(?:un|tu)\s+comentario\b|^(?:dodaj|napisz)\s+komentarz\b/i;

/**
 * The whole text of a label that opens the contact block of a press release or an institution's
 * news item ("Pressekontakt:", "Kontakt", "Ansprechpartnerin", "Media contact", "Contacto de
 * prensa"): who to call about the text, not the text. Matched on the label alone (cleaning.ts
 * takes it, and the short blocks after it, only near the article's end).
 */
export const CONTACT_HEADING =
  /^(?:(?:presse|medien|pressestelle\s+und\s+)?kontakt(?:\s+f(?:ü|ue)r\s+(?:rückfragen|medien|journalist(?:en|innen)|die\s+presse))?|ansprechpartner(?:in|innen)?(?:\s+f(?:ü|ue)r\s+(?:die\s+)?(?:presse|medien))?|(?:press|media)\s+contacts?|contacts?(?:\s+information)?|for\s+(?:more\s+information|media\s+inquiries),?\s+contact|contacto(?:\s+de\s+prensa)?|contact\s+presse|kontakt\s+dla\s+medi(?:ów|ow))\s*:?$/i;

/**
 * The whole text of a label that opens an author box ("About the author", "Über den Autor",
 * "AUTOR", "Autoreninfo", "À propos de l'auteur"): the writer's bio and links follow it. Matched
 * on the label alone (cleaning.ts takes it with the bio after it).
 */
export const AUTHOR_BOX_LABEL =
  /^(?:about (?:the |this )?(?:author|authors|writer|writers|contributor|contributors)|(?:the )?authors?|über (?:den|die) (?:autor|autorin|autoren|autorinnen|verfasser|verfasserin)|(?:der|die|zum|zur) (?:autor|autorin)|autor(?:in|en|innen)?|autoreninfo(?:rmation(?:en)?)?|autor(?:en)?profil|à propos de l[’']aut(?:eur|rice)|l[’']aut(?:eur|rice)|sobre (?:el|la) autora?|(?:el|la) autora?|l[’']autore|sull[’']autore|o autorze|o autorce|autorka)\s*:?$/i;

/**
 * Class/id words of boxes beside the article's text that can be longer than the metadata lines
 * {@link NEGATIVE} and the byline rule catch: an author box (the writer's photo, bio and links),
 * a disclaimer or a disclosure (editorial, advertising, affiliate).
 */
export const SIDE_BOX = /author[-_]*(?:box|bio|info|about|card|details|desc|profile|block|wrap)|about[-_]*(?:the[-_]*)?author|autor(?:en)?[-_]*(?:box|info|bio)|bio[-_]*box|disclaimer|disclosure/i;

/**
 * The start of a line that speaks to the reader about the site rather than the story: subscription
 * and newsletter prompts, "follow us", paywall notices, requests for support or feedback,
 * advertising or affiliate disclosures, and the comment area's own lines ("You must be logged in
 * to post a comment", "Comments are closed"). Matched only on short blocks (see furniture.ts).
 */
export const READER_PROMPT = new RegExp(
  "^[\\s*¡¿(\\-–—]*(?:" +
    [
      // English
      "subscribe\\b", "sign up\\b", "join (?:our|us)\\b", "follow (?:us|\\S+(?: \\S+){0,3} on (?:twitter|facebook|instagram|x|linkedin|tiktok|youtube))\\b",
      "never miss\\b", "don't miss\\b", "want (?:more|to be informed)\\b", "(?:if you )?(?:enjoyed|liked) (?:reading )?this\\b", "if you (?:enjoyed|liked|found)\\b",
      "support (?:our|us|independent)\\b", "become a (?:member|subscriber|patron|supporter)\\b", "click here to (?:subscribe|sign up|read more)\\b",
      "to (?:view|read|continue reading) (?:the full|this|the rest of)\\b", "already (?:a subscriber|subscribed)\\b", "for the latest (?:stories|news|updates)\\b",
      "we(?: would|'d|’d)? (?:want|like|love) to (?:hear|know) what you think\\b", "(?:submit|send|write) (?:us )?(?:a|your) letter to the editor\\b", "(?:have|got) a (?:news )?tip\\b",
      "if you(?:'|’| a)re (?:already a (?:subscriber|member)|seeing this message)\\b", "(?:first-time |new )?subscribers (?:also )?(?:get|receive|enjoy)\\b", "immediate (?:online )?access to\\b",
      "do you want to (?:be|stay) (?:informed|up to date)\\b", "get the latest (?:news|stories|updates|headlines)\\b", "download (?:the|our) (?:free )?app\\b",
      "support (?:quality |local |free )?journalism\\b", "thanks? (?:you )?for reading\\b",
      "(?:the )?(?:story|article|text) continues (?:below|after)\\b", "continue reading (?:the main story|below)\\b", "scroll (?:down )?to continue\\b",
      "sponsored(?: content| post| story)?\\s*$", "paid (?:post|content)\\s*$", "scroll down for (?:video|more)\\b", "continue reading\\s*$", "read the full (?:story|article)\\b",
      "(?:print|e-?mail) this (?:article|story|page|post)\\b", "(?:loading|wird geladen|chargement|cargando)\\s*(?:\\.\\.\\.|…)\\s*$",
      // A blog platform's like widget ("%d Bloggern gefällt das:", "12 bloggers like this.")
      "(?:%d|\\d+) (?:bloggern? gefällt das|bloggers? like this)\\b",
      // A listing's count or paging note ("Es werden die Weine 1 bis 10 von insgesamt 19 angezeigt",
      // "Showing 1–10 of 19 results", "Seite 2 von 5"): the list's controls, not its items
      "es werden (?:die )?(?:\\S+ )?\\d+ bis \\d+ (?:\\(?von|aus) (?:insgesamt )?\\d+\\b", "(?:zeige|anzeige) \\d+\\s*(?:[-–]|bis)\\s*\\d+ von (?:insgesamt )?\\d+\\b",
      "(?:showing|displaying|viewing) (?:results? |items? |entries )?\\d+\\s*(?:[-–]|to)\\s*\\d+ of (?:about )?\\d+\\b", "(?:seite|page|página|pagina|strona) \\d+ (?:von|of|de|di|z) \\d+\\s*$",
      // A picture's show and hide control written as text ("Bild anzeigen Bild schließen", "View image")
      "(?:bild|foto|grafik) (?:anzeigen|vergrößern|einblenden)(?: (?:bild|foto|grafik) (?:schließen|ausblenden|verkleinern))?\\s*$", "(?:view|show|enlarge) (?:the )?(?:image|photo|picture)(?: (?:hide|close) (?:the )?(?:image|photo|picture))?\\s*$",
      // A link line that points on, in place of the text it names ("Hier geht es zur Anmeldung")
      "hier geht(?:'s|’s| es) (?:direkt )?zu[rm]? (?!beispiel\\b)[^.!?]{1,60}$",
      // cookie notices that stayed in the article's container
      "we use cookies (?:to|on|and similar)\\b", "this (?:site|website) uses cookies\\b", "wir (?:verwenden|nutzen) cookies\\s*(?:,|um\\b|auf\\b)", "diese (?:website|webseite|seite) (?:verwendet|nutzt) cookies\\b",
      "utilizamos cookies (?:propias|para|de)\\b", "nous utilisons des cookies (?:pour|afin)\\b", "utilizziamo (?:i )?cookie (?:per|tecnici|di)\\b", "korzystamy z (?:plików )?cookies\\b",
      "advertising disclosure\\b", "advertisement\\s*(?:[.:|–—-]|$)", "advertising\\s*$", "(?:publicidad|publicité|pubblicità|reklama)\\s*(?:[.:|–—-]|$)", "this (?:post|article|page) (?:contains|includes) (?:affiliate|sponsored|paid|advertising)\\b",
      // Notices about the text itself: copyright and reprint terms, disclaimers (where a text first
      // appeared is kept: both labelled sets count it as the article's)
      "this (?:article|story|content|post|material) is (?:the )?(?:copyrighted|copyright|property)\\b", "all rights reserved\\b", "(?:written )?permission (?:must|is required) (?:be )?(?:obtained|to (?:reprint|republish|reproduce))\\b",
      "(?:the )?(?:views|opinions) expressed (?:in|here|by)\\b", "(?:\\S+ ){0,5}(?:is|are) not responsible for (?:the )?(?:opinions?|views|comments|content)\\b",
      // German
      "abonnieren sie\\b", "jetzt (?:abonnieren|anmelden|registrieren|kostenlos testen)\\b", "folgen sie uns\\b", "folge uns\\b", "melden sie sich\\b.{0,40}\\bnewsletter",
      "newsletter abonnieren\\b", "gefällt (?:dir|ihnen) (?:unser|dieser|der|das)\\b", "lust auf mehr\\b", "unterstützen sie\\b", "verpassen sie (?:keine|nichts)\\b",
      "(?:hat|war) (?:dir|ihnen) (?:der|dieser|unser) (?:artikel|beitrag)\\b", "war (?:der|dieser) (?:artikel|beitrag) (?:nützlich|hilfreich)\\b", "möchten sie (?:den|diesen) (?:artikel|beitrag) teilen\\b",
      "(?:dieser )?(?:text|artikel|beitrag) (?:wurde|ist|erschien) (?:zuerst |ursprünglich )?(?:veröffentlicht|erschienen) (?:unter|bei|auf|in|im)\\b", "(?:dieser )?(?:beitrag|artikel|text) gibt (?:die|ausschließlich die) meinung\\b", "alle rechte vorbehalten\\b",
      "werbung\\s*(?:[.:|–—-]|$)", "anzeige\\s*[-–:]", "anzeige\\s*$", "(?:dieser (?:beitrag|artikel) )?enthält (?:werbung|affiliate)", "anzeige, enthält\\b",
      // The comment area's own lines, where its markup did not mark it
      "you must be logged in\\b", "log in to (?:comment|reply|post)\\b", "leave a (?:reply|comment)\\b", "comments are closed\\b", "no comments yet\\b", "be the first to comment\\b",
      "sie müssen (?:sich )?(?:eingeloggt|angemeldet|einloggen|anmelden)\\b", "sie sind (?:aktuell |derzeit )?nicht (?:eingeloggt|angemeldet)\\b", "(?:noch )?keine kommentare\\b", "kommentare sind geschlossen\\b", "schreibe einen kommentar\\b",
      // Spanish, French, Italian, Polish
      "suscr[ií]bete\\b", "s[ií]guenos\\b", "[úu]nete a\\b", "hazte (?:miembro|socio)\\b", "no te pierdas\\b", "ap[óo]yanos\\b", "apoya (?:el|al|nuestro) periodismo\\b", "puedes? (?:escribirnos|seguirnos)\\b",
      "abonnez-vous\\b", "suivez-nous\\b", "inscrivez-vous\\b", "pour lire la suite\\b", "soutenez\\b",
      "iscriviti\\b", "seguici\\b", "abbonati\\b",
      // Copyright notices in these languages ("all rights reserved", "protected by copyright")
      "tous droits réservés\\b", "todos los derechos reservados\\b", "tutti i diritti riservati\\b", "wszelkie prawa zastrzeżone\\b", "materiał chroniony prawem autorskim\\b",
      "zapraszamy (?:też |także )?do (?:subskrypcji|obserwowania)\\b", "subskrybuj\\b", "obserwuj nas\\b",
    ].join("|") +
    ")",
  "i",
);

/**
 * Words that address the reader or speak for the site ("you", "your", "we", "our", "dir", "uns",
 * "nuestro", "vous"…), in the languages of {@link READER_PROMPT}: an appeal to the reader has them
 * in its first lines, a paragraph of the story that opens with the same words ("Sign up numbers for
 * the regatta were higher …") often has none. Case matters for German "Sie"/"Ihr" (the polite you).
 */
export const READER_ADDRESS =
  /(?<![\p{L}\p{N}])(?:[Yy]ou(?:r|rs)?|[Ww]e|[Uu]s|[Oo]ur|[Dd]u|[Dd]ir|[Dd]ich|[Dd]ein\p{L}*|[Ee]uch|[Ee]uer\p{L}*|Sie|Ihnen|Ihr\p{L}*|[Ww]ir|[Uu]ns|[Uu]nser\p{L}*|[Tt]e|[Tt]us?|[Uu]sted(?:es)?|[Nn]os|[Nn]uestr\p{L}+|[Vv]ous|[Vv]otre|[Vv]os|[Nn]ous|[Nn]otre|[Tt]i|[Tt]uo|[Nn]ostr\p{L}+|[Vv]ostr\p{L}+|[Cc]i[eę]|[Nn]as|[Nn]asz\p{L}*|[Tt]w[oó]j\p{L}*)(?![\p{L}\p{N}])/u;

/** Inline (phrasing) elements: their text is part of the enclosing block's paragraph text. */
export const INLINE_TAGS: ReadonlySet<string> = new Set([
  "a", "abbr", "b", "bdi", "bdo", "big", "br", "cite", "code", "data", "del", "dfn", "em", "font", "i", "img", "ins", "kbd",
  "label", "mark", "nobr", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr",
]);

/**
 * The start of a caption, photo credit or source line ("Foto: …", "Abbildung 4: …", "Copyright:
 * …"); copyright notices ("© 2020 …") are {@link COPYRIGHT_NOTICE}.
 */
export const CREDIT_LINE =
  /^\(?(?:(?:copyright|foto|fotos|bild|bilder|abbildung|abb\.|titelbild|beitragsbild|quelle|quellen|credit|credits|photo|photos|photograph|image|images|picture|illustration|source|sources|crédits?(?: photos?)?|fuente|źródło|zdjęcie|fot\.)\s*\d*\s*:)/i;
/** A credit line that names the maker ("Photo by Ann Example", "Illustration by …", "Foto von …"): the name is capitalized, so "Photographs by the police show …" goes on. */
export const CREDIT_BY_LINE = /^\(?(?:[Pp]hoto(?:graph)?|[Ii]mage|[Pp]icture|[Ii]llustration|[Vv]ideo|[Ff]oto)s?\s+(?:by|courtesy(?: of)?|von)\s+\p{Lu}/u;

/**
 * The start of a copyright notice: "©", "(c)" or "Copyright" with a year or the sign ("© 2022,
 * Example News. …", "Copyright 2021 Example Media"), not the word "copyright" in a sentence
 * ("Copyright law in the EU …"). Matched on blocks under 300 characters (furniture.ts).
 */
export const COPYRIGHT_NOTICE = /^(?:©|\(c\)\s|copyright\s*(?:©|\(c\)|\d{4}\b))/i;

/**
 * The text of a link back to the site's listing ("zurück zur Listenansicht", "← Back to news",
 * "Zurück zum Newsroom", "Retour à la liste"): navigation, when the link stands on a line of its
 * own (cleaning.ts).
 */
/**
 * The whole text of a link that ends another page's teaser ("Weiterlesen", "Link zum Artikel",
 * "Read more »", "Czytaj więcej"): the excerpt before it is that page's, not this one's.
 */
export const READ_MORE_LINK =
  /^(?:weiterlesen|mehr (?:erfahren|lesen|dazu)|(?:link )?zum (?:artikel|beitrag)|read (?:more|on|the full (?:story|article))|continue reading|lire la suite|en savoir plus|lire plus|leer más|seguir leyendo|leggi (?:tutto|di più|altro)|czytaj (?:więcej|dalej))\s*(?:[»›→>…]+|\.\.\.)?$/i;

export const BACK_LINK = /^[\s←<«‹‹↩-]*(?:zurück|back|retour|volver|regresar|torna|indietro|powrót|wróć)\b/i;

/**
 * A link whose text is its own address, written out ("http://www.example.org/petition",
 * "www.example.org", "editor@example.org"): a source or contact the writer gives in the text,
 * where a link of other words on a line of its own is another page's teaser.
 */
export const WRITTEN_ADDRESS = /^(?:(?:https?:\/\/|www\.)[^\s@]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)$/i;

const GLOBAL = new WeakMap<RegExp, RegExp>();
/**
 * A word in front of a furniture word that negates it ("non-paywall", "without-sidebar") or says the
 * element holds one ("has-sharing", "with-sidebar"): a layout modifier, not the furniture itself.
 * "nocomments" (no separator) is the "comments are closed" line itself.
 */
const NEGATION = /(?:^|[^a-z0-9])(?:no|non|not|without|has|with)[-_]$/i;
const isUpper = (c: string | undefined) => c !== undefined && c >= "A" && c <= "Z";
const isLower = (c: string | undefined) => c !== undefined && c >= "a" && c <= "z";

/**
 * Whether a class/id value holds one of `pattern`'s words as page authors use them: the
 * substring matching of Readability and trafilatura ("sidebar" in "leftsidebar", "menu" in
 * "mainmenu"), without its two kinds of false match:
 * - a word assembled across a camelCase boundary: "pager" in "APageRoot" (the words "Page" and
 *   "Root"); the match may not end inside a camelCase word that begins within it;
 * - a negated or modifier word: "paywall" in "non-paywall", "sidebar" in "no-sidebar" and
 *   "with-sidebar", "sharing" in "has-sharing" (a header that holds share buttons).
 * Linear in the value's length for each match; the value is short (a class attribute).
 */
export function hasClassWord(pattern: RegExp, value: string): boolean {
  if (value === "" || !pattern.test(value)) return false;
  let global = GLOBAL.get(pattern);
  if (global === undefined) {
    global = new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`);
    GLOBAL.set(pattern, global);
  }
  global.lastIndex = 0;
  for (let m = global.exec(value); m !== null; m = global.exec(value)) {
    const start = m.index;
    const end = start + m[0].length;
    if (m[0].length === 0) {
      global.lastIndex++;
      continue;
    }
    if (NEGATION.test(value.slice(Math.max(0, start - 9), start))) continue;
    let splitsWord = false;
    if (isLower(value[end])) {
      for (let k = start + 1; k < end && !splitsWord; k++) {
        splitsWord = isUpper(value[k]) && (isLower(value[k - 1]) || (isUpper(value[k - 1]) && isLower(value[k + 1])));
      }
    }
    if (!splitsWord) return true;
  }
  return false;
}

/** A date as news pages print it: 23.05.2011, 23/05/2011, 2011-05-23, "23. Mai 2011", "May 23, 2011", with a time. */
const DATE =
  "(?:\\d{1,2}[./-]\\s?\\d{1,2}[./-]\\s?\\d{2,4}|\\d{4}-\\d{2}-\\d{2}(?:[tT][\\d:.+zZ-]+)?|\\d{1,2}\\.?\\s+\\p{L}{3,10}\\.?\\s+\\d{4}|\\p{L}{3,10}\\.?\\s+\\d{1,2},?\\s+\\d{4})" +
  "(?:\\s*[,|-]?\\s*(?:um\\s+|at\\s+|à\\s+)?\\d{1,2}[:.h]\\d{2}(?:\\s*(?:[Uu]hr|h|[ap]m|[AP]M|[ap]\\.m\\.))?)?";
/**
 * A byline on a line of its own: "By Ann Example", "Von Ann Example und Bo Beispiel, NDR", "Par
 * Jean Exemple". Each name is two or more capitalized words, joined by commas or "and" in the
 * languages above; after a comma, a capitalized place or outlet (case matters: names are
 * capitalized, the words of a sentence are not), or an outlet after "for" ("By Ann Example for
 * Example Online"), and a date after the names ("By Ann Example | May 4, 2021"). The whole block must match: a
 * sentence that starts with "By the end of…" or "Von Risiken und Nebenwirkungen" does not.
 */
const NAME = "\\p{Lu}[\\p{L}\\p{M}'’.-]*(?:\\s+\\p{Lu}[\\p{L}\\p{M}'’.-]*)+";
const OUTLET = "\\p{Lu}[\\p{L}\\p{M}'’.&-]*(?:\\s+\\p{Lu}[\\p{L}\\p{M}'’.&-]*)*";
export const BYLINE_LINE = new RegExp(
  `^(?:[Bb]y|BY|[Vv]on|VON|[Pp]ar|[Pp]or|[Dd]oor|[Dd]i|[Pp]rzez|[Aa]v|[Aa]f)\\s+${NAME}(?:\\s*(?:,|and|und|et|y|e|i|en|og|och|&)\\s*${NAME})*(?:\\s*,\\s*${OUTLET})*(?:\\s+(?:for|für|pour|para|per|dla)\\s+${OUTLET})?(?:\\s*[|·•,–—-]?\\s*(?:(?:Published|Updated|Posted|Veröffentlicht|Aktualisiert)(?:\\s+(?:on|am))?\\s*:?\\s*)?${DATE})?\\s*$`,
  "u",
);

/**
 * The start of an author's bio line after the story: "Ann Example is a reporter for …", "Bo
 * Beispiel is an Egypt-based correspondent …", "Ann Example ist Redakteurin …", and a byline that
 * goes on with the bio ("By Ann Example, a deputy editor and author of …"). A name of two or
 * three capitalized words (with a particle such as "di", "van" between), then the writer's role within a few words (case matters: a sentence
 * of the story about a person is rarely about their being a reporter). Matched on short blocks.
 */
/** A writer's name in a bio line: two or three capitalized words, a particle ("di", "van") allowed between. */
const BIO_NAME = "\\p{Lu}[\\p{L}\\p{M}'’.-]+(?:\\s+(?:(?:di|de|da|del|van|von|der|den|le|la|al|bin|ibn)\\s+)?\\p{Lu}[\\p{L}\\p{M}'’.-]+){1,2}";
export const AUTHOR_BIO = new RegExp(
  `^(?:By\\s+${BIO_NAME},|${BIO_NAME}\\s+(?:is|was|ist|war|est))\\s+(?:\\S+\\s+){0,5}?` +
    "(?:reporter|correspondent|writer|editor|journalist|columnist|contributor|freelancer|producer|photographer|author|redakteur(?:in)?|korrespondent(?:in)?|journalist(?:in)?|autor(?:in)?|journaliste|rédact(?:eur|rice)|correspondant(?:e)?)\\b",
  "u",
);

/** One to eight names of capitalized words ("Ann Example", "A. Example, Bo Beispiel und Cy Muster"); case matters. */
const NAMES = "\\p{Lu}[\\p{L}\\p{M}'’.-]*(?:(?:\\s+|\\s*,\\s*|\\s*/\\s*|\\s+(?:and|und|et|y|e|i|&)\\s+)\\p{Lu}[\\p{L}\\p{M}'’.-]*){0,7}";

/** Labels as they are written: "Author", "author" or "AUTHOR" (the names after them are case-sensitive). */
const labels = (words: readonly string[]) => `(?:${words.flatMap((w) => [`[${w[0]!.toUpperCase()}${w[0]}]${w.slice(1)}`, w.toUpperCase()]).join("|")})`;

/**
 * A line of article metadata on its own, whatever its markup: an author or editor label with
 * names ("Auteur : Ann Example", "Autor: Bo Beispiel", "Text: www.example.pl"), a publication or
 * update label with a date ("Date 23.05.2011", "Veröffentlicht am 12.03.2020, 14:05 Uhr",
 * "Updated: May 4, 2021"), a date alone, a category label ("Kategorie: News"), a print or
 * permalink control ("Imprimer", "Permalink https://…"), a relative date ("Updated 3 hours ago",
 * "vor 2 Stunden"), or a reading time ("5 min read", "Lesezeit: 3 Minuten"; a duration alone is
 * not one). The title and URL of the page are in
 * the response; these lines say nothing of the story. The whole block must match, and the names
 * must be capitalized: "Text: Das ist der Text eines Satzes." or a sentence that starts with
 * "Date" or "Print" goes on and does not. Matched on short blocks outside tables (furniture.ts).
 */
/** A reading time's duration: "5 min", "3-5 Min.", "6 minutes", "2 Minuten". */
const DURATION = "\\d+(?:\\s*[-–]\\s*\\d+)?\\s*(?:min(?:ute[ns]?|utes?|utos?|uti)?\\.?|Min(?:uten|\\.)?)";
const METADATA_FIELD =
  "(?:" +
    [
      // author and editor labels, with names or a site's domain
      `${labels(["author", "authors", "autor", "autorin", "autoren", "auteur", "auteurs", "autore", "autori", "autorka", "editor", "edition", "édition", "redaktion", "rédaction", "redakcja", "text", "texte", "texto"])}\\s*[:：]\\s*(?:${NAMES}|(?:www\\.)?[\\w-]+(?:\\.[\\w-]+)+)`,
      // publication and update labels, with a date (or a date alone)
      `(?:${labels(["date", "datum", "fecha", "news date", "publication date", "veröffentlichung", "published", "posted", "updated", "last updated", "veröffentlicht", "aktualisiert", "zuletzt aktualisiert", "erstellt", "stand", "publié", "mis à jour", "publicado", "actualizado", "pubblicato", "aggiornato", "opublikowano", "aktualizacja"])}(?:\\s+(?:on|am|le|el|il))?\\s*[:：]?\\s*)?${DATE}`,
      // category labels
      `${labels(["category", "categories", "filed under", "kategorie", "kategorien", "rubrik", "catégorie", "categoría", "categoria", "kategoria"])}\\s*[:：]\\s*[^:]{1,60}`,
      // print and permalink controls
      `${labels(["print", "drucken", "imprimer", "imprimir", "stampa", "drukuj", "permalink", "permalien", "enlace permanente"])}(?:\\s+https?://\\S+)?`,
      // a relative date ("3 hours ago", "Updated 5 minutes ago", "vor 2 Stunden")
      `(?:${labels(["published", "updated", "posted", "veröffentlicht", "aktualisiert"])}\\s*:?\\s*)?(?:\\d+|an?|one)\\s+(?:seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?)\\s+ago`,
      `(?:${labels(["veröffentlicht", "aktualisiert"])}\\s+)?vor\\s+(?:\\d+|einer?)\\s+(?:Sekunden?|Minuten?|Stunden?|Tag(?:en)?|Wochen?|Monat(?:en)?)`,
      // reading time ("5 min read", "Lesezeit: 3 Minuten", "Estimated reading time: 6 minutes"): a label before or after; a duration alone is not one
      `${labels(["estimated reading time", "reading time", "read time", "lesezeit", "lesedauer", "temps de lecture", "tiempo de lectura", "tempo di lettura", "czas czytania"])}\\s*[:：]?\\s*(?:(?:etwa|ca\\.|about|approx\\.)\\s*)?${DURATION}`,
      `${DURATION}\\s+(?:read|de lecture|de lectura|di lettura|Lesezeit)`,
    ].join("|") +
    ")";
/**
 * {@link METADATA_FIELD}s on one line, up to three, side by side or between separators ("News date :
 * 04/21/2022 Category : Press Releases", "24.01.2022 11:38 Kategorie: News", "Date 23.05.2011 |
 * Auteur : Ann Example"), a date's closing full stop allowed ("Aktualisiert am 17.01.2021.").
 */
export const METADATA_LINE = new RegExp(`^${METADATA_FIELD}(?:\\s*[|·•/]?\\s*${METADATA_FIELD}){0,2}\\.?\\s*$`, "u");

/**
 * The start of a blog platform's filing line under a post: where it was filed and how to link to
 * it ("This entry was posted in News. Bookmark the permalink.", "Posted in News | Tagged …",
 * "Dieser Beitrag wurde unter … veröffentlicht", and the same default lines in French, Spanish,
 * Italian and Polish). Metadata about the post, not its text; matched on short blocks
 * (furniture.ts). Case matters for the first word, so "posted in" inside a sentence does not.
 */
export const FILING_LINE =
  /^(?:This (?:entry|post) was (?:posted|filed)\b|(?:Posted|Filed) (?:in|under)\s+\S|Bookmark the permalink\b|(?:Dieser|Der) (?:Beitrag|Eintrag) wurde (?:am\s|unter\s|in\s)|Cette entrée a été publiée\b|Esta entrada (?:fue publicada|se publicó)\b|Questa (?:voce|articolo) è stat[ao] pubblicat[ao]\b|Ten wpis został opublikowany\b)/u;

/**
 * The end of a short caption that names the photo's credit ("… gesegnet. | © Augusta
 * National/Getty Images", "Überblick. (Foto: Getty)", "… in Kobe. Photo: Ann Example"): a credit
 * after the sign or label, with no sentence in it. Matched on short blocks' whole text
 * (furniture.ts): a paragraph that merely ends with a credit word goes on.
 */
export const CAPTION_CREDIT_END = /(?:^|[\s|([])(?:©|\(c\)|(?:foto|fotos|photo|photos|bild|credit|credits|image|quelle|source)\s*:)\s*[^.!?©:]{2,60}[)\]]?\s*$/iu;

/**
 * The level of a PHP error message that a server printed into the page (display_errors on):
 * "Warning", "Notice", "Deprecated", "Strict Standards", "Fatal error"… PHP writes it in `<b>`
 * before ":  message in <b>/path/file.php</b> on line <b>12</b>".
 */
export const SERVER_MESSAGE_LEVEL = /^(?:PHP )?(?:Warning|Notice|Deprecated|Strict Standards|(?:Catchable |Recoverable )?Fatal error|Parse error|User (?:Warning|Notice|Deprecated))$/;
/** The same message as plain text (html_errors off): "Warning: message in /path/file.php on line 12". */
export const SERVER_MESSAGE_TEXT =
  /(?:PHP )?(?:Warning|Notice|Deprecated|Strict Standards|(?:Catchable |Recoverable )?Fatal error|Parse error):\s[^\n]{1,400}? in \/?[^\s<>]{1,300}\.(?:php|inc|phtml)(?:\(\d+\))? on line \d+/g;
