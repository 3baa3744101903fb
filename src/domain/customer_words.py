"""What the shop says to its customers, in their language: the customer's page
(routes/customer_render.py and its script) and the emails (domain/mail.py) take their words
from here, chosen by the language of the shop's locale (PRESSROOM_LOCALE), English when the
shop's language has no catalogue. Placeholders are str.format's; every language fills the
same ones (tests/unit/test_customer_words.py checks both)."""

from collections.abc import Mapping

from domain.customer_view import Stage
from domain.enums import ProofStatus

FALLBACK = "en"


def stage_key(stage: Stage) -> str:
    return f"stage.{stage}"


def proof_key(status: ProofStatus) -> str:
    return f"proof.{status}"


ENGLISH = {
    # Where the job is.
    stage_key(Stage.RECEIVED): "Received",
    stage_key(Stage.IN_DESIGN): "In design",
    stage_key(Stage.AWAITING_APPROVAL): "Waiting for your approval",
    stage_key(Stage.IN_PRODUCTION): "In production",
    stage_key(Stage.READY_FOR_PICKUP): "Ready for pickup",
    stage_key(Stage.READY_FOR_DELIVERY): "Ready for delivery",
    stage_key(Stage.OUT_FOR_DELIVERY): "Out for delivery",
    stage_key(Stage.DELIVERED): "Delivered",
    stage_key(Stage.PAUSED): "Paused: we will contact you",
    stage_key(Stage.CANCELLED): "Cancelled",
    # A proof version's state.
    proof_key(ProofStatus.PENDING): "Waiting for your approval",
    proof_key(ProofStatus.APPROVED): "Approved",
    proof_key(ProofStatus.CHANGES_REQUESTED): "Changes requested",
    proof_key(ProofStatus.WITHDRAWN): "Replaced by a newer version",
    # The page.
    "page.questions": "Questions? {reach}",
    "page.contact": "Please contact {shop}.",
    "page.order": "Order {number}",
    "page.where": "Where your job is",
    "page.due": "Due",
    "page.proofs": "Proofs",
    "page.version": "Version {version}",
    "page.decided": "{state} on {when}",
    "page.your_comments": "Your comments: {comment}",
    "page.preview": "Preview of Version {version}",
    "page.download": "Download Version {version} ({kind}, {size})",
    "page.file": "file",
    "page.check": "Please check this version: approve it, or tell us what should change.",
    "page.approve": "Approve Version {version}",
    "page.your_name": "Your name",
    "page.request_changes": "Request changes",
    "page.what_should_change": "What should change?",
    "page.send_changes": "Send the changes",
    "page.updated": "Last updated",
    "page.done_approved": "Thank you: your approval is recorded.",
    "page.done_changes": "Thank you: we have your comments and will send you a new version.",
    # What the page's script says.
    "script.changed": "Your order has changed since this page was loaded.",
    "script.show_changes": "Show the changes",
    "script.unreachable": "Could not reach the shop; trying again in a minute. Last tried",
    "script.not_updated": "Could not update; trying again in a minute. Last tried",
    # Why a decision was not recorded.
    "refused.comment": "Please say what should change, in at most {max} characters.",
    "refused.name": "Please give your name, in at most {max} characters.",
    "refused.superseded": "A newer version has arrived since: please look at it below.",
    "refused.decided": "This version was already decided.",
    "refused.closed": "This order is closed: your decision could not be recorded.",
    "refused.other": "Your decision could not be recorded just now: please try again.",
    # Pages that show no order.
    "notice.no_version_title": "No such version",
    "notice.no_version": "This order has no proof of that version.",
    "notice.broken_title": "This link does not work",
    "notice.broken": "Please check that the whole address was copied.",
    "notice.withdrawn_title": "This link was withdrawn",
    "notice.expired_title": "This link has expired",
    "notice.no_longer": "This link to your order no longer works. If you still need it, ask "
    "us for a new one.",
    "notice.too_many_title": "Too many requests",
    "notice.too_many": "Please try again in {seconds} seconds.",
    "notice.unavailable_title": "Your order cannot be shown right now",
    "notice.unavailable": "Please try again in a minute.",
    # The emails; {job} is " (the job line)" or nothing.
    "mail.hello": "Hello {name},",
    "mail.no_date": "no date",
    "mail.proof_ready.subject": "Your proof for order {number} is ready for your approval",
    "mail.proof_ready.body": "Version {version} of the proof for your order {number}{job} is "
    "ready. Please look at it, then approve it or tell us what to change: we print once you "
    "approve.",
    "mail.proof_ready.action": "See the proof",
    "mail.changes.subject": "Changes requested on the proof of order {number}",
    "mail.changes.body": "{who} of {customer} asked for changes to version {version} of the "
    "proof for order {number}{job}. Design has the task back.",
    "mail.changes.someone": "The customer",
    "mail.pickup.subject": "Your order {number} is ready for pickup",
    "mail.pickup.body": "Your order {number}{job} is ready: you can pick it up.",
    "mail.delivery.subject": "Your order {number} is out for delivery",
    "mail.delivery.body": "Your order {number}{job} is on its way to you.",
    "mail.due_later.subject": "Order {number} will be ready later than planned",
    "mail.due_later.body": "We are sorry: your order {number}{job} will be ready later than "
    "we told you. It is now due on {due} (it was {previous}).",
}

GERMAN = {
    stage_key(Stage.RECEIVED): "Eingegangen",
    stage_key(Stage.IN_DESIGN): "In der Gestaltung",
    stage_key(Stage.AWAITING_APPROVAL): "Wartet auf Ihre Freigabe",
    stage_key(Stage.IN_PRODUCTION): "In Produktion",
    stage_key(Stage.READY_FOR_PICKUP): "Bereit zur Abholung",
    stage_key(Stage.READY_FOR_DELIVERY): "Bereit zur Lieferung",
    stage_key(Stage.OUT_FOR_DELIVERY): "Unterwegs zu Ihnen",
    stage_key(Stage.DELIVERED): "Geliefert",
    stage_key(Stage.PAUSED): "Angehalten: Wir melden uns bei Ihnen",
    stage_key(Stage.CANCELLED): "Storniert",
    proof_key(ProofStatus.PENDING): "Wartet auf Ihre Freigabe",
    proof_key(ProofStatus.APPROVED): "Freigegeben",
    proof_key(ProofStatus.CHANGES_REQUESTED): "Änderungen gewünscht",
    proof_key(ProofStatus.WITHDRAWN): "Durch eine neuere Version ersetzt",
    "page.questions": "Fragen? {reach}",
    "page.contact": "Bitte wenden Sie sich an {shop}.",
    "page.order": "Auftrag {number}",
    "page.where": "Wo Ihr Auftrag gerade ist",
    "page.due": "Fertig bis",
    "page.proofs": "Korrekturabzüge",
    "page.version": "Version {version}",
    "page.decided": "{state} am {when}",
    "page.your_comments": "Ihre Anmerkungen: {comment}",
    "page.preview": "Vorschau von Version {version}",
    "page.download": "Version {version} herunterladen ({kind}, {size})",
    "page.file": "Datei",
    "page.check": "Bitte prüfen Sie diese Version: Geben Sie sie frei, oder sagen Sie uns, "
    "was geändert werden soll.",
    "page.approve": "Version {version} freigeben",
    "page.your_name": "Ihr Name",
    "page.request_changes": "Änderungen anfordern",
    "page.what_should_change": "Was soll geändert werden?",
    "page.send_changes": "Änderungen senden",
    "page.updated": "Zuletzt aktualisiert",
    "page.done_approved": "Vielen Dank: Ihre Freigabe ist eingegangen.",
    "page.done_changes": "Vielen Dank: Wir haben Ihre Anmerkungen erhalten und senden Ihnen "
    "eine neue Version.",
    "script.changed": "Ihr Auftrag hat sich geändert, seit diese Seite geladen wurde.",
    "script.show_changes": "Änderungen anzeigen",
    "script.unreachable": "Die Druckerei ist gerade nicht erreichbar; wir versuchen es in "
    "einer Minute erneut. Zuletzt versucht",
    "script.not_updated": "Aktualisierung nicht möglich; wir versuchen es in einer Minute "
    "erneut. Zuletzt versucht",
    "refused.comment": "Bitte sagen Sie uns, was geändert werden soll (höchstens {max} Zeichen).",
    "refused.name": "Bitte geben Sie Ihren Namen an (höchstens {max} Zeichen).",
    "refused.superseded": "Inzwischen ist eine neuere Version eingetroffen: Bitte sehen Sie "
    "sie sich unten an.",
    "refused.decided": "Über diese Version wurde bereits entschieden.",
    "refused.closed": "Dieser Auftrag ist abgeschlossen: Ihre Entscheidung konnte nicht "
    "gespeichert werden.",
    "refused.other": "Ihre Entscheidung konnte gerade nicht gespeichert werden: Bitte "
    "versuchen Sie es noch einmal.",
    "notice.no_version_title": "Diese Version gibt es nicht",
    "notice.no_version": "Zu diesem Auftrag gibt es keinen Korrekturabzug in dieser Version.",
    "notice.broken_title": "Dieser Link funktioniert nicht",
    "notice.broken": "Bitte prüfen Sie, ob die ganze Adresse kopiert wurde.",
    "notice.withdrawn_title": "Dieser Link wurde zurückgezogen",
    "notice.expired_title": "Dieser Link ist abgelaufen",
    "notice.no_longer": "Dieser Link zu Ihrem Auftrag funktioniert nicht mehr. Wenn Sie ihn "
    "noch brauchen, bitten Sie uns um einen neuen.",
    "notice.too_many_title": "Zu viele Anfragen",
    "notice.too_many": "Bitte versuchen Sie es in {seconds} Sekunden noch einmal.",
    "notice.unavailable_title": "Ihr Auftrag kann gerade nicht angezeigt werden",
    "notice.unavailable": "Bitte versuchen Sie es in einer Minute noch einmal.",
    "mail.hello": "Guten Tag {name},",
    "mail.no_date": "kein Datum",
    "mail.proof_ready.subject": "Ihr Korrekturabzug für Auftrag {number} wartet auf Ihre Freigabe",
    "mail.proof_ready.body": "Version {version} des Korrekturabzugs für Ihren Auftrag "
    "{number}{job} ist fertig. Bitte sehen Sie ihn sich an und geben Sie ihn frei, oder "
    "sagen Sie uns, was wir ändern sollen: Wir drucken, sobald Sie ihn freigeben.",
    "mail.proof_ready.action": "Korrekturabzug ansehen",
    "mail.changes.subject": "Änderungswünsche zum Korrekturabzug von Auftrag {number}",
    "mail.changes.body": "{who} von {customer} wünscht Änderungen an Version {version} des "
    "Korrekturabzugs für Auftrag {number}{job}. Die Aufgabe liegt wieder bei der Gestaltung.",
    "mail.changes.someone": "Der Kunde",
    "mail.pickup.subject": "Ihr Auftrag {number} ist abholbereit",
    "mail.pickup.body": "Ihr Auftrag {number}{job} ist fertig: Sie können ihn abholen.",
    "mail.delivery.subject": "Ihr Auftrag {number} ist unterwegs",
    "mail.delivery.body": "Ihr Auftrag {number}{job} ist auf dem Weg zu Ihnen.",
    "mail.due_later.subject": "Auftrag {number} wird später fertig als geplant",
    "mail.due_later.body": "Es tut uns leid: Ihr Auftrag {number}{job} wird später fertig, "
    "als wir Ihnen gesagt haben. Neuer Termin ist {due} (bisher {previous}).",
}

FRENCH = {
    stage_key(Stage.RECEIVED): "Reçue",
    stage_key(Stage.IN_DESIGN): "En création graphique",
    stage_key(Stage.AWAITING_APPROVAL): "En attente de votre validation",
    stage_key(Stage.IN_PRODUCTION): "En production",
    stage_key(Stage.READY_FOR_PICKUP): "Prête à être retirée",
    stage_key(Stage.READY_FOR_DELIVERY): "Prête à être livrée",
    stage_key(Stage.OUT_FOR_DELIVERY): "En cours de livraison",
    stage_key(Stage.DELIVERED): "Livrée",
    stage_key(Stage.PAUSED): "En pause : nous vous contacterons",
    stage_key(Stage.CANCELLED): "Annulée",
    proof_key(ProofStatus.PENDING): "En attente de votre validation",
    proof_key(ProofStatus.APPROVED): "Validée",
    proof_key(ProofStatus.CHANGES_REQUESTED): "Modifications demandées",
    proof_key(ProofStatus.WITHDRAWN): "Remplacée par une version plus récente",
    "page.questions": "Des questions ? {reach}",
    "page.contact": "Veuillez contacter {shop}.",
    "page.order": "Commande {number}",
    "page.where": "Où en est votre commande",
    "page.due": "Date prévue",
    "page.proofs": "Épreuves",
    "page.version": "Version {version}",
    "page.decided": "{state} le {when}",
    "page.your_comments": "Vos remarques : {comment}",
    "page.preview": "Aperçu de la version {version}",
    "page.download": "Télécharger la version {version} ({kind}, {size})",
    "page.file": "fichier",
    "page.check": "Veuillez vérifier cette version : validez-la, ou dites-nous ce qu'il faut "
    "modifier.",
    "page.approve": "Valider la version {version}",
    "page.your_name": "Votre nom",
    "page.request_changes": "Demander des modifications",
    "page.what_should_change": "Que faut-il modifier ?",
    "page.send_changes": "Envoyer les modifications",
    "page.updated": "Dernière mise à jour",
    "page.done_approved": "Merci : votre validation est enregistrée.",
    "page.done_changes": "Merci : nous avons bien reçu vos remarques et vous enverrons une "
    "nouvelle version.",
    "script.changed": "Votre commande a changé depuis le chargement de cette page.",
    "script.show_changes": "Afficher les changements",
    "script.unreachable": "Impossible de joindre l'imprimerie ; nouvel essai dans une "
    "minute. Dernier essai",
    "script.not_updated": "Mise à jour impossible ; nouvel essai dans une minute. Dernier essai",
    "refused.comment": "Veuillez indiquer ce qu'il faut modifier, en {max} caractères au plus.",
    "refused.name": "Veuillez indiquer votre nom, en {max} caractères au plus.",
    "refused.superseded": "Une version plus récente est arrivée entre-temps : veuillez la "
    "consulter ci-dessous.",
    "refused.decided": "Cette version a déjà fait l'objet d'une décision.",
    "refused.closed": "Cette commande est clôturée : votre décision n'a pas pu être enregistrée.",
    "refused.other": "Votre décision n'a pas pu être enregistrée pour le moment : veuillez "
    "réessayer.",
    "notice.no_version_title": "Version introuvable",
    "notice.no_version": "Cette commande n'a pas d'épreuve dans cette version.",
    "notice.broken_title": "Ce lien ne fonctionne pas",
    "notice.broken": "Veuillez vérifier que l'adresse a été copiée en entier.",
    "notice.withdrawn_title": "Ce lien a été retiré",
    "notice.expired_title": "Ce lien a expiré",
    "notice.no_longer": "Ce lien vers votre commande ne fonctionne plus. Si vous en avez "
    "encore besoin, demandez-nous-en un nouveau.",
    "notice.too_many_title": "Trop de requêtes",
    "notice.too_many": "Veuillez réessayer dans {seconds} secondes.",
    "notice.unavailable_title": "Votre commande ne peut pas être affichée pour le moment",
    "notice.unavailable": "Veuillez réessayer dans une minute.",
    "mail.hello": "Bonjour {name},",
    "mail.no_date": "aucune date",
    "mail.proof_ready.subject": "L'épreuve de votre commande {number} attend votre validation",
    "mail.proof_ready.body": "La version {version} de l'épreuve de votre commande "
    "{number}{job} est prête. Veuillez la consulter, puis la valider ou nous dire ce qu'il "
    "faut modifier : nous imprimons dès votre validation.",
    "mail.proof_ready.action": "Voir l'épreuve",
    "mail.changes.subject": "Modifications demandées sur l'épreuve de la commande {number}",
    "mail.changes.body": "{who} ({customer}) a demandé des modifications de la version "
    "{version} de l'épreuve de la commande {number}{job}. La création graphique reprend la "
    "tâche.",
    "mail.changes.someone": "Le client",
    "mail.pickup.subject": "Votre commande {number} est prête à être retirée",
    "mail.pickup.body": "Votre commande {number}{job} est prête : vous pouvez venir la retirer.",
    "mail.delivery.subject": "Votre commande {number} est en cours de livraison",
    "mail.delivery.body": "Votre commande {number}{job} est en route vers vous.",
    "mail.due_later.subject": "La commande {number} sera prête plus tard que prévu",
    "mail.due_later.body": "Nous sommes désolés : votre commande {number}{job} sera prête "
    "plus tard que prévu. Elle est maintenant prévue pour le {due} (au lieu du {previous}).",
}

SPANISH = {
    stage_key(Stage.RECEIVED): "Recibido",
    stage_key(Stage.IN_DESIGN): "En diseño",
    stage_key(Stage.AWAITING_APPROVAL): "Pendiente de su aprobación",
    stage_key(Stage.IN_PRODUCTION): "En producción",
    stage_key(Stage.READY_FOR_PICKUP): "Listo para recoger",
    stage_key(Stage.READY_FOR_DELIVERY): "Listo para el envío",
    stage_key(Stage.OUT_FOR_DELIVERY): "En reparto",
    stage_key(Stage.DELIVERED): "Entregado",
    stage_key(Stage.PAUSED): "En pausa: nos pondremos en contacto con usted",
    stage_key(Stage.CANCELLED): "Cancelado",
    proof_key(ProofStatus.PENDING): "Pendiente de su aprobación",
    proof_key(ProofStatus.APPROVED): "Aprobada",
    proof_key(ProofStatus.CHANGES_REQUESTED): "Cambios solicitados",
    proof_key(ProofStatus.WITHDRAWN): "Sustituida por una versión más reciente",
    "page.questions": "¿Preguntas? {reach}",
    "page.contact": "Póngase en contacto con {shop}.",
    "page.order": "Pedido {number}",
    "page.where": "Dónde está su pedido",
    "page.due": "Fecha de entrega",
    "page.proofs": "Pruebas",
    "page.version": "Versión {version}",
    "page.decided": "{state} el {when}",
    "page.your_comments": "Sus comentarios: {comment}",
    "page.preview": "Vista previa de la versión {version}",
    "page.download": "Descargar la versión {version} ({kind}, {size})",
    "page.file": "archivo",
    "page.check": "Revise esta versión: apruébela o díganos qué hay que cambiar.",
    "page.approve": "Aprobar la versión {version}",
    "page.your_name": "Su nombre",
    "page.request_changes": "Solicitar cambios",
    "page.what_should_change": "¿Qué hay que cambiar?",
    "page.send_changes": "Enviar los cambios",
    "page.updated": "Última actualización",
    "page.done_approved": "Gracias: su aprobación ha quedado registrada.",
    "page.done_changes": "Gracias: hemos recibido sus comentarios y le enviaremos una nueva "
    "versión.",
    "script.changed": "Su pedido ha cambiado desde que se cargó esta página.",
    "script.show_changes": "Mostrar los cambios",
    "script.unreachable": "No se ha podido contactar con la imprenta; lo intentaremos de "
    "nuevo en un minuto. Último intento",
    "script.not_updated": "No se ha podido actualizar; lo intentaremos de nuevo en un "
    "minuto. Último intento",
    "refused.comment": "Indique qué hay que cambiar, en {max} caracteres como máximo.",
    "refused.name": "Indique su nombre, en {max} caracteres como máximo.",
    "refused.superseded": "Mientras tanto ha llegado una versión más reciente: revísela más abajo.",
    "refused.decided": "Ya se ha tomado una decisión sobre esta versión.",
    "refused.closed": "Este pedido está cerrado: no se ha podido registrar su decisión.",
    "refused.other": "No se ha podido registrar su decisión en este momento: inténtelo de nuevo.",
    "notice.no_version_title": "Esa versión no existe",
    "notice.no_version": "Este pedido no tiene ninguna prueba de esa versión.",
    "notice.broken_title": "Este enlace no funciona",
    "notice.broken": "Compruebe que ha copiado la dirección completa.",
    "notice.withdrawn_title": "Este enlace se ha retirado",
    "notice.expired_title": "Este enlace ha caducado",
    "notice.no_longer": "Este enlace a su pedido ya no funciona. Si todavía lo necesita, "
    "pídanos uno nuevo.",
    "notice.too_many_title": "Demasiadas solicitudes",
    "notice.too_many": "Inténtelo de nuevo dentro de {seconds} segundos.",
    "notice.unavailable_title": "Su pedido no se puede mostrar en este momento",
    "notice.unavailable": "Inténtelo de nuevo dentro de un minuto.",
    "mail.hello": "Hola, {name}:",
    "mail.no_date": "sin fecha",
    "mail.proof_ready.subject": "La prueba de su pedido {number} está lista para su aprobación",
    "mail.proof_ready.body": "La versión {version} de la prueba de su pedido {number}{job} "
    "está lista. Revísela y apruébela, o díganos qué hay que cambiar: imprimimos en cuanto "
    "usted la apruebe.",
    "mail.proof_ready.action": "Ver la prueba",
    "mail.changes.subject": "Cambios solicitados en la prueba del pedido {number}",
    "mail.changes.body": "{who} ({customer}) ha solicitado cambios en la versión {version} "
    "de la prueba del pedido {number}{job}. Diseño vuelve a tener la tarea.",
    "mail.changes.someone": "El cliente",
    "mail.pickup.subject": "Su pedido {number} está listo para recoger",
    "mail.pickup.body": "Su pedido {number}{job} está listo: ya puede recogerlo.",
    "mail.delivery.subject": "Su pedido {number} está en reparto",
    "mail.delivery.body": "Su pedido {number}{job} va de camino.",
    "mail.due_later.subject": "El pedido {number} estará listo más tarde de lo previsto",
    "mail.due_later.body": "Lo sentimos: su pedido {number}{job} estará listo más tarde de "
    "lo que le indicamos. La nueva fecha es el {due} (antes, el {previous}).",
}

DUTCH = {
    stage_key(Stage.RECEIVED): "Ontvangen",
    stage_key(Stage.IN_DESIGN): "In ontwerp",
    stage_key(Stage.AWAITING_APPROVAL): "Wacht op uw goedkeuring",
    stage_key(Stage.IN_PRODUCTION): "In productie",
    stage_key(Stage.READY_FOR_PICKUP): "Klaar om af te halen",
    stage_key(Stage.READY_FOR_DELIVERY): "Klaar voor bezorging",
    stage_key(Stage.OUT_FOR_DELIVERY): "Onderweg naar u",
    stage_key(Stage.DELIVERED): "Geleverd",
    stage_key(Stage.PAUSED): "Gepauzeerd: we nemen contact met u op",
    stage_key(Stage.CANCELLED): "Geannuleerd",
    proof_key(ProofStatus.PENDING): "Wacht op uw goedkeuring",
    proof_key(ProofStatus.APPROVED): "Goedgekeurd",
    proof_key(ProofStatus.CHANGES_REQUESTED): "Wijzigingen gevraagd",
    proof_key(ProofStatus.WITHDRAWN): "Vervangen door een nieuwere versie",
    "page.questions": "Vragen? {reach}",
    "page.contact": "Neem contact op met {shop}.",
    "page.order": "Bestelling {number}",
    "page.where": "Waar uw bestelling is",
    "page.due": "Klaar op",
    "page.proofs": "Drukproeven",
    "page.version": "Versie {version}",
    "page.decided": "{state} op {when}",
    "page.your_comments": "Uw opmerkingen: {comment}",
    "page.preview": "Voorbeeld van versie {version}",
    "page.download": "Versie {version} downloaden ({kind}, {size})",
    "page.file": "bestand",
    "page.check": "Controleer deze versie: keur haar goed, of laat ons weten wat er moet "
    "veranderen.",
    "page.approve": "Versie {version} goedkeuren",
    "page.your_name": "Uw naam",
    "page.request_changes": "Wijzigingen vragen",
    "page.what_should_change": "Wat moet er veranderen?",
    "page.send_changes": "Wijzigingen versturen",
    "page.updated": "Laatst bijgewerkt",
    "page.done_approved": "Dank u: uw goedkeuring is vastgelegd.",
    "page.done_changes": "Dank u: we hebben uw opmerkingen ontvangen en sturen u een nieuwe "
    "versie.",
    "script.changed": "Uw bestelling is veranderd sinds deze pagina werd geladen.",
    "script.show_changes": "Wijzigingen tonen",
    "script.unreachable": "De drukkerij is niet bereikbaar; we proberen het over een minuut "
    "opnieuw. Laatst geprobeerd",
    "script.not_updated": "Bijwerken lukte niet; we proberen het over een minuut opnieuw. "
    "Laatst geprobeerd",
    "refused.comment": "Geef aan wat er moet veranderen, in hoogstens {max} tekens.",
    "refused.name": "Geef uw naam, in hoogstens {max} tekens.",
    "refused.superseded": "Intussen is er een nieuwere versie: bekijk die hieronder.",
    "refused.decided": "Over deze versie is al beslist.",
    "refused.closed": "Deze bestelling is afgesloten: uw beslissing kon niet worden vastgelegd.",
    "refused.other": "Uw beslissing kon nu niet worden vastgelegd: probeer het opnieuw.",
    "notice.no_version_title": "Deze versie bestaat niet",
    "notice.no_version": "Deze bestelling heeft geen drukproef van die versie.",
    "notice.broken_title": "Deze link werkt niet",
    "notice.broken": "Controleer of het hele adres is gekopieerd.",
    "notice.withdrawn_title": "Deze link is ingetrokken",
    "notice.expired_title": "Deze link is verlopen",
    "notice.no_longer": "Deze link naar uw bestelling werkt niet meer. Hebt u hem nog nodig, "
    "vraag ons dan om een nieuwe.",
    "notice.too_many_title": "Te veel verzoeken",
    "notice.too_many": "Probeer het over {seconds} seconden opnieuw.",
    "notice.unavailable_title": "Uw bestelling kan nu niet worden getoond",
    "notice.unavailable": "Probeer het over een minuut opnieuw.",
    "mail.hello": "Beste {name},",
    "mail.no_date": "geen datum",
    "mail.proof_ready.subject": "Uw drukproef voor bestelling {number} wacht op uw goedkeuring",
    "mail.proof_ready.body": "Versie {version} van de drukproef voor uw bestelling "
    "{number}{job} is klaar. Bekijk haar en keur haar goed, of laat ons weten wat er moet "
    "veranderen: we drukken zodra u haar goedkeurt.",
    "mail.proof_ready.action": "Drukproef bekijken",
    "mail.changes.subject": "Wijzigingen gevraagd op de drukproef van bestelling {number}",
    "mail.changes.body": "{who} van {customer} vraagt wijzigingen in versie {version} van de "
    "drukproef voor bestelling {number}{job}. Ontwerp heeft de taak terug.",
    "mail.changes.someone": "De klant",
    "mail.pickup.subject": "Uw bestelling {number} is klaar om af te halen",
    "mail.pickup.body": "Uw bestelling {number}{job} is klaar: u kunt haar afhalen.",
    "mail.delivery.subject": "Uw bestelling {number} is onderweg",
    "mail.delivery.body": "Uw bestelling {number}{job} is onderweg naar u.",
    "mail.due_later.subject": "Bestelling {number} is later klaar dan gepland",
    "mail.due_later.body": "Het spijt ons: uw bestelling {number}{job} is later klaar dan "
    "we u hebben gezegd. De nieuwe datum is {due} (eerst was het {previous}).",
}

CATALOGUES: dict[str, Mapping[str, str]] = {
    "en": ENGLISH,
    "de": GERMAN,
    "fr": FRENCH,
    "es": SPANISH,
    "nl": DUTCH,
}


def language(locale: str) -> str:
    """The language whose words a locale (en-GB, de_AT, nl) reads: its own when there is a
    catalogue of it, else English."""
    code = locale.replace("_", "-").split("-")[0].lower()
    return code if code in CATALOGUES else FALLBACK


class Words:
    """The words of one language: `words("page.order", number="A-12")`."""

    def __init__(self, locale: str) -> None:
        self.language = language(locale)
        self._catalogue = CATALOGUES[self.language]

    def __call__(self, key: str, **values: object) -> str:
        text = self._catalogue[key]
        return text.format(**values) if values else text
